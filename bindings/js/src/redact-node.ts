// `jsonrpc-errors/redact` for Node: loads the redaction module (redaction under options, built for speed)
// synchronously. Importing other entries too loads their modules as well, and `setEnvironment` reaches each.

import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { installRedact } from "./runtime.js";
import * as glue from "./wasm/jsonrpc_errors_redact.js";

glue.initSync({ module: readFileSync(new URL("./wasm/jsonrpc_errors_redact_bg.wasm", import.meta.url)) });
installRedact(glue, (array) => void webcrypto.getRandomValues(array));

// `init` for code that runs in browsers too: the module is already loaded here, so it resolves at once.
export { init } from "./init.js";
export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./redact-public.js";
