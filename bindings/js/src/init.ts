// `init`: how a program says where the WebAssembly module comes from and when it loads. Browser entries load
// nothing at import (no top-level await): `init` fetches and instantiates the module, and calls made before it
// resolves throw `NotInitializedError`. Node entries load the module synchronously at import, so there `init`
// resolves at once (it is exported for code that runs in both).

import { ArgumentTypeError } from "./errors.js";

/** A fetch `Response` (or anything shaped like one) holding the module's bytes. */
export interface WasmResponse {
  readonly ok: boolean;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * Where the module comes from: a URL (a string is resolved as `fetch` resolves it: against the page), a fetch
 * `Response` or a promise of one, the module's bytes, or a compiled `WebAssembly.Module` (DOM's type for it is
 * an empty interface, so any other object is taken for one and refused by the engine).
 */
export type WasmSource = string | URL | WasmResponse | PromiseLike<WasmResponse> | ArrayBuffer | ArrayBufferView | object;

export interface InitOptions {
  /**
   * The module of the entry `init` was imported from (default: the file next to the entry in the installed
   * package, `new URL("./wasm/…_bg.wasm", import.meta.url)`, which Vite and webpack emit as an asset). A page
   * that imports `jsonrpc-errors/guard` or `jsonrpc-errors/mcp` loads one module for those and the main entry:
   * `jsonrpc_errors_guard_bg.wasm`, whichever entry's `init` is called.
   */
  wasm?: WasmSource;
}

/** Checks `init`'s argument; returns the module source given, if any. */
export function wasmSourceOf(options: InitOptions | undefined): WasmSource | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ArgumentTypeError("init(options): options must be an object such as { wasm: url }");
  }
  for (const key of Object.keys(options)) {
    if (key !== "wasm") throw new ArgumentTypeError(`init(options): unknown option ${JSON.stringify(key)} (expected "wasm")`);
  }
  const wasm = options.wasm;
  if (wasm === undefined) return undefined;
  if (typeof wasm !== "string" && (wasm === null || typeof wasm !== "object")) {
    throw new ArgumentTypeError("init(options): wasm must be a URL, a string, a Response, its bytes or a WebAssembly.Module");
  }
  return wasm;
}

/** `init` where the module was loaded at import (Node): checks its argument and resolves. */
export async function init(options?: InitOptions): Promise<void> {
  wasmSourceOf(options);
}
