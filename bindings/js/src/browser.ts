// Browser / bundler entry point (`browser` and `default` export conditions): fetches the module next to this
// file (bundlers such as Vite emit it as an asset from the `new URL(..., import.meta.url)` below).

import { install } from "./runtime.js";
import init, * as glue from "./wasm/jsonrpc_errors.js";

await init({ module_or_path: new URL("./wasm/jsonrpc_errors_bg.wasm", import.meta.url) });
install({ glue, randomFill: (array) => void globalThis.crypto.getRandomValues(array) });

export * from "./public.js";
