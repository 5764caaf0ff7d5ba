// Browser / bundler entry point (`browser` and `default` export conditions). Nothing is fetched at import:
// `await init()` loads the module, by default the file next to this one (bundlers such as Vite and webpack
// emit it as an asset from the `new URL(..., import.meta.url)` below), or the one `init({ wasm })` names.

import type { InitOptions } from "./init.js";
import { initModule, registerModule } from "./load-browser.js";
import { install } from "./runtime.js";
import initWasm, * as glue from "./wasm/jsonrpc_errors.js";
import type { InitInput } from "./wasm/jsonrpc_errors.js";

registerModule("base", {
  defaultUrl: () => new URL("./wasm/jsonrpc_errors_bg.wasm", import.meta.url),
  async load(wasm) {
    await initWasm({ module_or_path: wasm as InitInput });
    install({ glue, randomFill: (array) => void globalThis.crypto.getRandomValues(array) });
  },
});

/**
 * Loads the WebAssembly module; call it (and wait) before the first call. Idempotent: concurrent and later
 * calls share the first load (a failed load can be retried). In a page that also imports
 * `jsonrpc-errors/guard` or `jsonrpc-errors/mcp`, it loads their module, which serves this entry too.
 */
export function init(options?: InitOptions): Promise<void> {
  return initModule("base", options);
}

export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./public.js";
