// Everything the package exports, whichever entry point (Node or browser) loaded the WebAssembly module.

export {
  codes,
  explain,
  explainJson,
  JsonRpcError,
  kinds,
  kindsJson,
  lookupKind,
  mapError,
  mapErrorJson,
  redact,
  redactDetails,
  redactJson,
  sanitize,
  sanitizeJson,
  setEnvironment,
  validate,
  validateJson,
} from "./api.js";
export { ArgumentTypeError, ArgumentValueError, InvalidInputError, JsonRpcErrorsError, NotInitializedError, WasmFaultError } from "./errors.js";
export type * from "./types.js";
export * from "./taxonomy.js";
