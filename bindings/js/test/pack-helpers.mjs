// npm pack + install into an empty temp project (shared by the pack and browser tests).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PKG_DIR } from "./helpers.mjs";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** `npm pack --dry-run --json`: the tarball's file list. */
export function packedFiles() {
  const out = execFileSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: PKG_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [info] = JSON.parse(out);
  return info;
}

/** Packs the package (dist/ as built) and installs the tarball into a fresh project; returns its folder. */
export function installIntoTempProject(extraFiles = {}) {
  const dir = mkdtempSync(join(tmpdir(), "jsonrpc-errors-consumer-"));
  const packDir = join(dir, ".pack");
  mkdirSync(packDir);
  const out = execFileSync(npm, ["pack", "--json", "--ignore-scripts", "--pack-destination", packDir], { cwd: PKG_DIR, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [info] = JSON.parse(out);
  const project = join(dir, "app");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2));
  for (const [name, text] of Object.entries(extraFiles)) writeFileSync(join(project, name), text);
  execFileSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", join(packDir, info.filename)], { cwd: project, stdio: ["ignore", "ignore", "inherit"] });
  return { dir, project, tarball: join(packDir, info.filename), info };
}
