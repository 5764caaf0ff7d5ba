// The public API: thin wrappers over the wasm-bindgen exports. All mapping logic lives in the Rust guest.

import { ArgumentTypeError, ArgumentValueError } from "./errors.js";
import { call, checkedBytes, checkedText, contextArgs, maxInputBytes, setEnvironmentFlat } from "./runtime.js";
import type { Dialect, DialectFields, ErrorKind, KindFields } from "./taxonomy.js";
import { ERROR_KINDS } from "./taxonomy.js";
import { validateRecordJson } from "./validate-record.js";
import type {
  CodesFormat,
  ContextOptions,
  ErrorInput,
  ErrorInputCommon,
  ErrorInputIn,
  ErrorObject,
  ErrorResponse,
  ExplainedKind,
  Explanation,
  Id,
  JsonRpcResponse,
  JsonValue,
  Redaction,
  ValidateOptions,
  ValidateResult,
} from "./types.js";

const encoder = new TextEncoder();
const KNOWN_KINDS: ReadonlySet<string> = new Set(ERROR_KINDS);

/** Compact JSON of a caller's value; what JSON cannot carry is the caller's mistake, reported as such (not
 *  turned into `null` as JSON.stringify does with NaN and Infinity, nor a plain TypeError for a BigInt or a
 *  cycle). */
export function jsonOf(value: unknown, what: string): string {
  let out: string | undefined;
  try {
    out = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "number" && !Number.isFinite(v)) {
        throw new ArgumentTypeError(`${what} holds ${String(v)}, which JSON cannot carry`);
      }
      return v;
    });
  } catch (e) {
    if (e instanceof ArgumentTypeError) throw e;
    throw new ArgumentTypeError(`${what} is not JSON-serializable: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (out === undefined) throw new ArgumentTypeError(`${what} is not JSON-serializable`);
  return out;
}

export function text(value: unknown, what: string): string {
  if (typeof value !== "string") {
    throw new ArgumentTypeError(`${what} must be a string, not ${typeof value}`);
  }
  return checkedText(value);
}

/** Bytes, or a string's UTF-8; `sized: false` for validate, which answers an oversize body itself. */
function bytes(raw: unknown, what: string, sized = true): Uint8Array {
  let out: Uint8Array;
  if (typeof raw === "string") out = encoder.encode(checkedText(raw));
  else if (raw instanceof Uint8Array) out = raw;
  else if (raw instanceof ArrayBuffer) out = new Uint8Array(raw);
  else if (ArrayBuffer.isView(raw)) out = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  else throw new ArgumentTypeError(`${what} must be a string, a Uint8Array or an ArrayBuffer`);
  return sized ? checkedBytes(out) : out;
}

function integer(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new ArgumentTypeError(`${what} must be a safe integer`);
  }
  return value;
}

/** `input` (`{kind, id?, correlation_id?, timestamp?, ...fields}` or an array of such) as JSON text → the response text. */
export function mapErrorJson(input: string, dialect: Dialect = "canonical", options?: ContextOptions): string {
  const [ms, hi, lo] = contextArgs(options?.context);
  return call((g) => g.mapError(text(input, "input"), text(dialect, "dialect"), ms, hi, lo));
}

/**
 * The JSON-RPC 2.0 response for an error (or for several errors of one request: the first gate in gate order
 * wins) in a dialect. Throws `InvalidInputError` when the input does not fit the taxonomy.
 */
export function mapError<D extends Dialect = "canonical">(
  error: ErrorInputIn<D> | readonly ErrorInputIn<D>[],
  dialect: D = "canonical" as D,
  options?: ContextOptions,
): JsonRpcResponse {
  if (typeof error !== "object" || error === null) {
    throw new ArgumentTypeError("error must be an object (or an array of objects)");
  }
  return JSON.parse(mapErrorJson(jsonOf(error, "error"), dialect, options)) as JsonRpcResponse;
}

/** `{"text", "findings"}` as JSON text. */
export function redactJson(input: string): string {
  const t = text(input, "text");
  return call((g) => g.redactJson(t));
}

/** `text` with secrets, credentials, PII, home paths, stack traces and the configured environment values replaced. */
export function redact(input: string): string {
  const t = text(input, "text");
  return call((g) => g.redact(t));
}

/** The redacted text and where each secret was (UTF-8 byte offsets into the input). */
export function redactDetails(input: string): Redaction {
  return JSON.parse(redactJson(input)) as Redaction;
}

/** `validate` as JSON text (the exact bytes the library produced). */
export function validateJson(raw: Uint8Array | ArrayBuffer | string, options: ValidateOptions = {}): string {
  const body = bytes(raw, "raw", false);
  // An oversize body never enters wasm: the guest is told its length and answers without reading it (as the
  // Rust host and the Python package do).
  const { json, withheld } = validateRecordJson(options, body.length, maxInputBytes());
  const [ms, hi, lo] = contextArgs(options.context);
  return call((g) => g.validate(withheld ? new Uint8Array(0) : body, json, ms, hi, lo));
}

/**
 * Validates raw request bytes: `{valid: true, id?, method}`, the error response, or (batch "allow") an array
 * with one entry per member.
 */
export function validate(raw: Uint8Array | ArrayBuffer | string, options: ValidateOptions = {}): ValidateResult {
  return JSON.parse(validateJson(raw, options)) as ValidateResult;
}

/** `sanitize` as JSON text. */
export function sanitizeJson(raw: Uint8Array | ArrayBuffer | string, dialect: Dialect = "canonical", options?: ContextOptions): string {
  const body = bytes(raw, "raw");
  const d = text(dialect, "dialect");
  const [ms, hi, lo] = contextArgs(options?.context);
  return call((g) => g.sanitize(body, d, ms, hi, lo));
}

/** An upstream error response (raw bytes; invalid UTF-8 is repaired) made safe to pass on, for a dialect. */
export function sanitize(
  raw: Uint8Array | ArrayBuffer | string,
  dialect: Dialect = "canonical",
  options?: ContextOptions,
): JsonRpcResponse {
  return JSON.parse(sanitizeJson(raw, dialect, options)) as JsonRpcResponse;
}

/** `explain` as JSON text. */
export function explainJson(code: number, dialect: Dialect = "canonical"): string {
  const c = integer(code, "code");
  const d = text(dialect, "dialect");
  return call((g) => g.explain(d, c));
}

/** Every kind `dialect` renders with `code`, with its facts. */
export function explain(code: number, dialect: Dialect = "canonical"): Explanation {
  return JSON.parse(explainJson(code, dialect)) as Explanation;
}

/** The kind a dialect's `code` stands for (`message` and `data` tell shared codes apart), or null. */
export function lookupKind(code: number, dialect: Dialect = "canonical", message?: string, data?: JsonValue): ErrorKind | null {
  const c = integer(code, "code");
  const d = text(dialect, "dialect");
  const m = message === undefined || message === null ? undefined : text(message, "message");
  const dataJson = data === undefined ? undefined : jsonOf(data, "data");
  const kind = call((g) => g.lookupKind(d, c, m, dataJson));
  return kind === undefined ? null : (kind as ErrorKind);
}

/** The code table of one dialect (or all) as Markdown or JSON text. */
export function codes(dialect?: Dialect | null, format: CodesFormat = "markdown"): string {
  const d = dialect === undefined || dialect === null ? undefined : text(dialect, "dialect");
  const f = text(format, "format");
  return call((g) => g.codes(d, f));
}

/** `kinds` as JSON text. */
export function kindsJson(): string {
  return call((g) => g.kindsJson());
}

/** The taxonomy table: every kind with its canonical code and message, its facts and its fields. */
export function kinds(): ExplainedKind[] {
  return JSON.parse(kindsJson()) as ExplainedKind[];
}

/**
 * Hands the library candidate environment variables; it keeps the secret-looking ones (by name) and scrubs
 * their values from all output. Replaces any earlier environment. Returns how many were kept.
 */
export function setEnvironment(
  env: Readonly<Record<string, string | undefined>> | Iterable<readonly [string, string]>,
): number {
  const flat: string[] = [];
  const entries: Iterable<readonly [string, string | undefined]> =
    env !== null && typeof env === "object" && Symbol.iterator in env
      ? (env as Iterable<readonly [string, string]>)
      : Object.entries(env as Record<string, string | undefined>);
  for (const entry of entries) {
    if (!Array.isArray(entry) || entry.length !== 2) {
      throw new ArgumentTypeError("environment entries must be [name, value] pairs");
    }
    const [k, v] = entry;
    if (v === undefined) continue; // process.env may hold undefined values
    flat.push(text(k, "environment name"), text(v, "environment value"));
  }
  return setEnvironmentFlat(flat);
}

// ------------------------------------------------------------------------------------------ typed errors

function isErrorObject(value: unknown): value is ErrorObject {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { code?: unknown; message?: unknown };
  return typeof v.code === "number" && Number.isInteger(v.code) && typeof v.message === "string";
}

/**
 * A JSON-RPC error a server can throw and a client can parse back.
 *
 * Server: `throw JsonRpcError.fromKind("method-not-found", { method: "x" })`, then answer with
 * `err.toResponse(requestId)`. Client: `JsonRpcError.fromResponse(response)`; `.kind` is filled by the
 * library's reverse lookup.
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data: JsonValue | undefined;
  readonly kind: ErrorKind | null;
  readonly dialect: Dialect;

  constructor(
    code: number,
    message: string,
    data?: JsonValue,
    options: { kind?: ErrorKind | null; dialect?: Dialect } = {},
  ) {
    super(message);
    this.name = "JsonRpcError";
    this.code = code;
    this.data = data;
    this.kind = options.kind ?? null;
    this.dialect = options.dialect ?? "canonical";
  }

  /** Renders `kind` with its fields in a dialect (which must use the error style) and wraps the error object. */
  static fromKind<K extends ErrorKind, D extends Dialect = "canonical">(
    kind: K,
    fields: KindFields[K] & ErrorInputCommon & DialectFields[D],
    dialect: D = "canonical" as D,
    options?: ContextOptions,
  ): JsonRpcError {
    const response = mapError({ ...fields, kind } as ErrorInputIn<D>, dialect, options);
    if (!("error" in response)) {
      throw new ArgumentValueError(
        `dialect '${dialect}' reports '${kind}' as a result, not as an error object: mapError() gives that response`,
      );
    }
    const e = response.error;
    return new JsonRpcError(e.code, e.message, e.data, { kind, dialect });
  }

  /** Parses a JSON-RPC response (or a bare error object) back into an error with `.kind`. */
  static fromResponse(response: ErrorResponse | ErrorObject | { error: ErrorObject }, dialect: Dialect = "canonical"): JsonRpcError {
    if (typeof response !== "object" || response === null) {
      throw new ArgumentTypeError("response must be an object");
    }
    const err: unknown = "error" in response ? response.error : response;
    if (!isErrorObject(err)) {
      throw new ArgumentTypeError("response has no JSON-RPC error object with an integer code and a string message");
    }
    const found = lookupKind(err.code, dialect, err.message, err.data);
    const kind = found !== null && KNOWN_KINDS.has(found) ? found : null;
    return new JsonRpcError(err.code, err.message, err.data, { kind, dialect });
  }

  /** The error object. */
  toError(): ErrorObject {
    const out: ErrorObject = { code: this.code, message: this.message };
    if (this.data !== undefined) out.data = this.data;
    return out;
  }

  /** The full response for a request id. */
  toResponse(id: Id = null): ErrorResponse {
    return { jsonrpc: "2.0", error: this.toError(), id };
  }

  toJSON(): ErrorObject {
    return this.toError();
  }
}

export type { Id };
