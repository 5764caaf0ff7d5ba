// `jsonrpc-errors/guard` for browsers and bundlers: fetches the guard module next to this file.

import { installGuard } from "./runtime.js";
import init, * as glue from "./wasm/jsonrpc_errors_guard.js";

await init({ module_or_path: new URL("./wasm/jsonrpc_errors_guard_bg.wasm", import.meta.url) });
installGuard(glue, (array) => void globalThis.crypto.getRandomValues(array));

export * from "./guard-public.js";
