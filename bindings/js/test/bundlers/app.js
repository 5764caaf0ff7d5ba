// The page test/bundlers.test.mjs bundles (copied into a fresh project next to scenario.js): the main entry and
// jsonrpc-errors/mcp, loaded with `init` (zero-config, or from the URL the build defines as WASM_URL).
import { init, mapError, redact } from "jsonrpc-errors";
import { guardTransport } from "jsonrpc-errors/mcp";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { scenario } from "./scenario.js";

const started = performance.now();
init(typeof WASM_URL === "string" ? { wasm: WASM_URL } : undefined)
  .then(() => scenario({ mapError, redact, guardTransport, InMemoryTransport }))
  .then(
    (result) => (window.__done = { result, initMs: performance.now() - started }),
    (e) => (window.__done = { error: String((e && e.stack) || e) }),
  );
