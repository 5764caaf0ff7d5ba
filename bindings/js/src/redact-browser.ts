// `jsonrpc-errors/redact` for browsers and bundlers: fetches the redaction module next to this file.

import { installRedact } from "./runtime.js";
import init, * as glue from "./wasm/jsonrpc_errors_redact.js";

await init({ module_or_path: new URL("./wasm/jsonrpc_errors_redact_bg.wasm", import.meta.url) });
installRedact(glue, (array) => void globalThis.crypto.getRandomValues(array));

export * from "./redact-public.js";
