// Everything `jsonrpc-errors/guard` exports, whichever entry point loaded the guard module.

export { GuardSession } from "./guard.js";
export type { EventStep, ForwardStep, GuardOptions, GuardOutcome, GuardStep, Peer, SendStep, UpstreamFailure } from "./guard.js";
export { setEnvironment } from "./api.js";
export { ArgumentTypeError, InvalidInputError, JsonRpcErrorsError, WasmFaultError } from "./errors.js";
