// Shared by the Node test files.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseVectors } from "./vectors-lib.js";

export const PKG_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_ROOT = resolve(PKG_DIR, "..", "..");
export const VECTORS_DIR = process.env.JSONRPC_ERRORS_VECTORS ?? join(REPO_ROOT, "tests", "vectors");

/** Every vector file, read now (files added later are picked up by the next run). */
export function vectorFiles() {
  const names = readdirSync(VECTORS_DIR).filter((f) => f.endsWith(".json")).sort();
  if (names.length === 0) throw new Error(`no vector files in ${VECTORS_DIR}`);
  return names.map((file) => ({ file, doc: parseVectors(readFileSync(join(VECTORS_DIR, file), "utf8")) }));
}
