// Every case of every file in tests/vectors through the npm package (the wasm-bindgen build) in Node.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as pkg from "jsonrpc-errors";
import * as guardPkg from "jsonrpc-errors/guard";
import { vectorFiles } from "./helpers.mjs";
import * as runtime from "../dist/runtime.js";
import { packageAdapter } from "./package-adapter.js";
import { runCase } from "./vectors-lib.js";

const adapter = packageAdapter(pkg, guardPkg, runtime);

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
