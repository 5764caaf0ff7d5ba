// `init` in Node and in the types: every entry exports it (Node entries load their module at import, so there it
// checks its argument and resolves), and its types need no DOM library. Browsers: test/browser.test.mjs and
// test/bundlers.test.mjs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PKG_DIR } from "./helpers.mjs";

const ts = createRequire(join(PKG_DIR, "package.json"))("typescript");

/** The `await` expressions (and `for await`) of a module's top level, with the browser entry's imports followed. */
function topLevelAwaits(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)) found.push(`${file}: ${node.getText().slice(0, 60)}`);
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && node.moduleSpecifier.text.startsWith(".")) {
      found.push(...topLevelAwaits(join(file, "..", node.moduleSpecifier.text), seen));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const pkg = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
const entries = Object.entries(pkg.exports).filter(([, e]) => typeof e === "object" && e.node !== undefined);

test("every entry exports init for Node and for browsers, typed", async () => {
  assert.deepEqual(entries.map(([name]) => name).sort(), [".", "./guard", "./mcp", "./redact"]);
  for (const [name, e] of entries) {
    const node = await import(join(PKG_DIR, e.node));
    assert.equal(typeof node.init, "function", `${name} (node)`);
    await node.init();
    await node.init({ wasm: new URL("https://cdn.example/x.wasm") });
    await assert.rejects(node.init({ wasm: 5 }), { name: "ArgumentTypeError" });
    await assert.rejects(node.init({ wsam: "x.wasm" }), (e) => e.name === "ArgumentTypeError" && e.message.includes('"wsam"'));
    for (const file of [e.types, e.browser]) {
      const dts = readFileSync(join(PKG_DIR, file.replace(/\.js$/, ".d.ts")), "utf8");
      assert.match(dts, /\binit\b/, `${file}'s types declare init`);
    }
    // No top-level await in the browser entry (bundlers for targets without it refuse the bundle).
    assert.deepEqual(topLevelAwaits(join(PKG_DIR, e.browser)), [], `${e.browser} awaits at import`);
  }
});

test("init's types compile in a project without the DOM library (Node's types only)", () => {
  const dir = mkdtempSync(join(tmpdir(), "jsonrpc-errors-init-types-"));
  try {
    writeFileSync(
      join(dir, "use.ts"),
      `import { init, mapError, NotInitializedError, type InitOptions } from ${JSON.stringify(join(PKG_DIR, "dist", "node.js"))};
import { init as initGuard } from ${JSON.stringify(join(PKG_DIR, "dist", "guard-browser.js"))};
const options: InitOptions[] = [{}, { wasm: "/x.wasm" }, { wasm: new URL("https://cdn.example/x.wasm") }, { wasm: new Uint8Array(8) }, { wasm: new ArrayBuffer(8) }];
export async function start(): Promise<number> {
  for (const o of options) await init(o);
  await initGuard();
  const e: Error = new NotInitializedError("x");
  return mapError({ kind: "method-not-found", method: "m", id: 1 }).id === 1 && e ? 1 : 0;
}
// @ts-expect-error a number is no module source
void init({ wasm: 5 });
`,
    );
    const tsc = createRequire(join(PKG_DIR, "package.json")).resolve("typescript/bin/tsc");
    execFileSync(
      process.execPath,
      [tsc, "--noEmit", "--strict", "--skipLibCheck", "false", "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--lib", "ES2022", "--types", "node", "--typeRoots", join(PKG_DIR, "node_modules", "@types"), join(dir, "use.ts")],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" },
    );
  } catch (e) {
    assert.fail(`tsc: ${e.stdout ?? ""}${e.stderr ?? ""}${e.stdout === undefined ? e : ""}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
