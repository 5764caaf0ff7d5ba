// Everything `jsonrpc-errors/guard` exports, whichever entry point (Node, browser) loaded the guard module:
// guard sessions, and redaction under options run on the guard module.

export { GuardSession, checkPolicy } from "./guard.js";
export type { EventStep, ForwardStep, GuardOptions, GuardOutcome, GuardStep, HttpRefusal, Peer, PolicyDefaults, RequestFailure, SendStep, UpstreamFailure } from "./guard.js";
import { redactionOn } from "./redact-options.js";
import { callGuard } from "./runtime.js";
export const { redactJsonValue, redactJsonValueJson, redactWith, redactWithJson } = redactionOn(callGuard);
export type { ExtraRule, JsonFinding, JsonRedaction, OversizeOptions, RedactionMethod, RedactOptions } from "./types.js";
export { setEnvironment } from "./api.js";
export { ArgumentTypeError, ArgumentValueError, InvalidInputError, JsonRpcErrorsError, NotInitializedError, WasmFaultError } from "./errors.js";
export { errorResponse } from "./server.js";
export type { ErrorResponseOptions, RequestFailedEvent, ServerErrorLogger } from "./server.js";
