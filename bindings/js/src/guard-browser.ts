// `jsonrpc-errors/guard` for browsers and bundlers. Nothing is fetched at import: `await init()` loads the guard
// module, by default the file next to this one (emitted by bundlers that handle `new URL(..., import.meta.url)`),
// or the one `init({ wasm })` names. The guard module holds the main entry's calls too: a page that imports both
// downloads this one module, whichever entry's `init` it calls.

import type { InitOptions } from "./init.js";
import { initModule, registerModule } from "./load-browser.js";
import { installGuard } from "./runtime.js";
import initWasm, * as glue from "./wasm/jsonrpc_errors_guard.js";
import type { InitInput } from "./wasm/jsonrpc_errors_guard.js";

registerModule("guard", {
  defaultUrl: () => new URL("./wasm/jsonrpc_errors_guard_bg.wasm", import.meta.url),
  async load(wasm) {
    await initWasm({ module_or_path: wasm as InitInput });
    installGuard(glue, (array) => void globalThis.crypto.getRandomValues(array), true);
  },
});

/**
 * Loads the guard module; call it (and wait) before the first call. Idempotent: concurrent and later calls
 * share the first load (a failed load can be retried).
 */
export function init(options?: InitOptions): Promise<void> {
  return initModule("guard", options);
}

export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./guard-public.js";
