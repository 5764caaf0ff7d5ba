// `npm run build`: compiles src/*.ts into dist/ and copies the wasm-bindgen glue written by `cargo xtask js`
// (bindings/js/wasm/) into dist/wasm/.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const glue = join(here, "wasm");
const files = [
  ...["jsonrpc_errors.js", "jsonrpc_errors.d.ts", "jsonrpc_errors_bg.wasm"],
  ...["jsonrpc_errors_guard.js", "jsonrpc_errors_guard.d.ts", "jsonrpc_errors_guard_bg.wasm"],
  ...["jsonrpc_errors_redact.js", "jsonrpc_errors_redact.d.ts", "jsonrpc_errors_redact_bg.wasm"],
];
for (const f of files) {
  if (!existsSync(join(glue, f))) {
    console.error(`missing ${join(glue, f)}: run \`cargo xtask js\` first`);
    process.exit(1);
  }
}
rmSync(join(here, "dist"), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", join(here, "tsconfig.json")], { stdio: "inherit" });
mkdirSync(join(here, "dist", "wasm"), { recursive: true });
for (const f of files) copyFileSync(join(glue, f), join(here, "dist", "wasm", f));
