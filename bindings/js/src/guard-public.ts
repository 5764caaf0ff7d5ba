// Everything `jsonrpc-errors/guard` (alias `jsonrpc-errors/redact`) exports, whichever entry point loaded the
// guard module: guard sessions, and redaction under options.

export { GuardSession } from "./guard.js";
export type { EventStep, ForwardStep, GuardOptions, GuardOutcome, GuardStep, Peer, SendStep, UpstreamFailure } from "./guard.js";
export { redactJsonValue, redactJsonValueJson, redactWith, redactWithJson } from "./redact-options.js";
export type { ExtraRule, JsonFinding, JsonRedaction, RedactionMethod, RedactOptions } from "./types.js";
export { setEnvironment } from "./api.js";
export { ArgumentTypeError, ArgumentValueError, InvalidInputError, JsonRpcErrorsError, WasmFaultError } from "./errors.js";
