// Every case of every file in tests/vectors through the npm package (the wasm-bindgen build) in Node.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as pkg from "jsonrpc-errors";
import * as guardPkg from "jsonrpc-errors/guard";
import * as redactPkg from "jsonrpc-errors/redact";
import { vectorFiles } from "./helpers.mjs";
import * as runtime from "../dist/runtime.js";
import { packageAdapter } from "./package-adapter.js";
import { runCase } from "./vectors-lib.js";

const adapter = packageAdapter(pkg, guardPkg, runtime);
// The redaction entry's own module (built for speed, no guard session) on every case it can run: the default
// policy's cases as `redactWith` with no options (the same output as the base module's `redactJson`).
const redactionAdapter = {
  ...packageAdapter(pkg, guardPkg, runtime, redactPkg),
  redact: (text) => redactPkg.redactWithJson(text, "{}"),
};
const REDACTION_OPS = new Set(["redact", "redact_with", "redact_json_value"]);

for (const { file, doc } of vectorFiles()) {
  describe(`vectors (wasm-bindgen, node): ${file}`, () => {
    for (const c of doc.cases) {
      test(c.name, () => {
        const r = runCase(adapter, c);
        assert.ok(r.pass, r.message);
      });
    }
  });
}

for (const { file, doc } of vectorFiles()) {
  const cases = doc.cases.filter((c) => REDACTION_OPS.has(c.op));
  if (cases.length === 0) continue;
  describe(`vectors (wasm-bindgen redaction module, node): ${file}`, () => {
    for (const c of cases) {
      test(c.name, () => {
        const r = runCase(redactionAdapter, c);
        assert.ok(r.pass, r.message);
      });
    }
  });
}
