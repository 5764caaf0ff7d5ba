// Exceptions the package throws about its own calls.

import type { ErrorObject, JsonValue } from "./types.js";

/** Base class of every error the package throws about its own calls. */
export class JsonRpcErrorsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** An argument has the wrong JavaScript type (thrown before anything reaches the WebAssembly module). */
export class ArgumentTypeError extends JsonRpcErrorsError {}

/** An argument has the right type but a value the call cannot take (a kind that its dialect reports as a
 *  result asked for as an error object, for example). */
export class ArgumentValueError extends JsonRpcErrorsError {}

/** A call was made before its WebAssembly module was loaded: in a browser, `await init()` (exported by the
 *  entry the call comes from) first. */
export class NotInitializedError extends JsonRpcErrorsError {}

/** The library refused the input; `.error` is its JSON-RPC error object (code -32602, message, data). */
export class InvalidInputError extends JsonRpcErrorsError {
  readonly error: ErrorObject;
  constructor(error: ErrorObject) {
    const details = error.data === undefined ? "" : `: ${JSON.stringify(error.data)}`;
    super(`${error.message} (${error.code})${details}`);
    this.error = error;
  }
  get code(): number {
    return this.error.code;
  }
  get data(): JsonValue | undefined {
    return this.error.data;
  }
}

/** The WebAssembly module trapped. `.error` is the plain internal error (-32603); the module was re-instantiated. */
export class WasmFaultError extends JsonRpcErrorsError {
  readonly error: ErrorObject;
  constructor(error: ErrorObject, options?: { cause?: unknown }) {
    super(`${error.message} (${error.code})`);
    this.error = error;
    if (options && "cause" in options) {
      Object.defineProperty(this, "cause", { value: options.cause, enumerable: false, configurable: true, writable: true });
    }
  }
  get code(): number {
    return this.error.code;
  }
}
