// Everything `jsonrpc-errors/redact` exports, whichever entry point (Node, browser) loaded the redaction module:
// redaction under options, run on a module of its own that is built for speed (Cargo.toml, `npm-redact`) and
// holds no guard session.

import { redactionOn } from "./redact-options.js";
import { callRedact } from "./runtime.js";
export const { redactJsonValue, redactJsonValueJson, redactWith, redactWithJson } = redactionOn(callRedact);
export type { ExtraRule, JsonFinding, JsonRedaction, RedactionMethod, RedactOptions } from "./types.js";
export { setEnvironment } from "./api.js";
export { ArgumentTypeError, ArgumentValueError, InvalidInputError, JsonRpcErrorsError, NotInitializedError, WasmFaultError } from "./errors.js";
