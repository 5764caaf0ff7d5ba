// `jsonrpc-errors/guard` for Node: loads the guard module (guard sessions, redaction under options) synchronously.
// A module of its own so that the base package's download stays within its budget; importing both entries
// loads both modules, and `setEnvironment` reaches both.

import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { installGuard } from "./runtime.js";
import * as glue from "./wasm/jsonrpc_errors_guard.js";

glue.initSync({ module: readFileSync(new URL("./wasm/jsonrpc_errors_guard_bg.wasm", import.meta.url)) });
installGuard(glue, (array) => void webcrypto.getRandomValues(array));

// `init` for code that runs in browsers too: the module is already loaded here, so it resolves at once.
export { init } from "./init.js";
export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./guard-public.js";
