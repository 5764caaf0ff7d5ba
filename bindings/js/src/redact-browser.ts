// `jsonrpc-errors/redact` for browsers and bundlers. Nothing is fetched at import: `await init()` loads the
// redaction module, by default the file next to this one (emitted by bundlers that handle
// `new URL(..., import.meta.url)`), or the one `init({ wasm })` names.

import type { InitOptions } from "./init.js";
import { initModule, registerModule } from "./load-browser.js";
import { installRedact } from "./runtime.js";
import initWasm, * as glue from "./wasm/jsonrpc_errors_redact.js";
import type { InitInput } from "./wasm/jsonrpc_errors_redact.js";

registerModule("redact", {
  defaultUrl: () => new URL("./wasm/jsonrpc_errors_redact_bg.wasm", import.meta.url),
  async load(wasm) {
    await initWasm({ module_or_path: wasm as InitInput });
    installRedact(glue, (array) => void globalThis.crypto.getRandomValues(array));
  },
});

/**
 * Loads the redaction module; call it (and wait) before the first call. Idempotent: concurrent and later
 * calls share the first load (a failed load can be retried).
 */
export function init(options?: InitOptions): Promise<void> {
  return initModule("redact", options);
}

export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./redact-public.js";
