// Node entry point (`node` export condition): reads the module from the package with `fs` and instantiates
// it synchronously, so importing the package needs no top-level await.

import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { install } from "./runtime.js";
import * as glue from "./wasm/jsonrpc_errors.js";

glue.initSync({ module: readFileSync(new URL("./wasm/jsonrpc_errors_bg.wasm", import.meta.url)) });
install({ glue, randomFill: (array) => void webcrypto.getRandomValues(array) });

// `init` for code that runs in browsers too: the module is already loaded here, so it resolves at once.
export { init } from "./init.js";
export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./public.js";
