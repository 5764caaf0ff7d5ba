// Loading in browsers and bundlers: each browser entry registers, at import, how to load its module; nothing
// is fetched until `init`. Internal: not part of the package's public API.
//
// - Lazy: importing an entry runs no top-level await and fetches nothing (bundles for targets without
//   top-level await, such as esbuild's es2020, build; a page decides when the download happens).
// - One load per module: concurrent `init` calls share it, later ones return it; a failed load is forgotten,
//   so `init` can be called again (after a network error, say).
// - One module for the main entry and `jsonrpc-errors/guard` / `jsonrpc-errors/mcp`: the guard module holds
//   the main entry's calls too, so when a page imports a guard entry, the main entry's `init` loads (or waits
//   for) the guard module instead of downloading the base one as well.

import { wasmSourceOf, type InitOptions, type WasmSource } from "./init.js";

export type ModuleRole = "base" | "guard" | "redact";

export interface ModuleLoader {
  /** The module next to the entry in the installed package (a `new URL(…, import.meta.url)` bundlers see). */
  defaultUrl(): URL;
  /** Instantiates the module from `wasm` and installs it in the runtime. */
  load(wasm: WasmSource): Promise<void>;
}

const loaders = new Map<ModuleRole, ModuleLoader>();
const loads = new Map<ModuleRole, Promise<void>>();

/** Called by each browser entry when it is imported. */
export function registerModule(role: ModuleRole, loader: ModuleLoader): void {
  if (!loaders.has(role)) loaders.set(role, loader);
}

/** `init` of the entry whose module is `role`. */
export function initModule(role: ModuleRole, options: InitOptions | undefined): Promise<void> {
  let wasm: WasmSource | undefined;
  try {
    wasm = wasmSourceOf(options);
  } catch (e) {
    return Promise.reject(e);
  }
  const which = role === "base" && loaders.has("guard") ? "guard" : role;
  let load = loads.get(which);
  if (load === undefined) {
    const loader = loaders.get(which)!;
    load = loader.load(wasm ?? loader.defaultUrl());
    loads.set(which, load);
    load.catch(() => {
      if (loads.get(which) === load) loads.delete(which);
    });
  }
  return load;
}
