// A plain JSON-RPC server's failure, in one call: the canonical response for the client, a redacted record for
// the operator. What `guardTool` does for an MCP tool, for any method of any JSON-RPC server (Express, Fastify,
// a WebSocket loop). Python's `jsonrpc_errors.error_response` makes the same calls, so both answer and log the
// same failure alike. It lives in `jsonrpc-errors/guard`: the operator's record is redacted as the guard's log
// is (secrets go, stack traces and paths stay), which only the guard module can do.

import { JsonRpcError, jsonOf, text } from "./api.js";
import { ArgumentTypeError } from "./errors.js";
import { GuardSession } from "./guard.js";
import { redactionOn } from "./redact-options.js";
import { callGuard, contextArgs } from "./runtime.js";
import type { Dialect, ErrorKind } from "./taxonomy.js";
import { KINDS } from "./taxonomy.js";
import { REDACT_OPTION_KEYS } from "./redaction-schema.js";
import type { ContextOptions, ErrorObject, ErrorResponse, Id, JsonValue, RedactOptions } from "./types.js";

type LogLevel = "error" | "warn" | "info" | "debug";

/** Where a failure is logged: `console`, or any logger with an `error` method (and, used when present,
 *  `warn`, `info`, `debug` for failures the taxonomy logs lower). */
export interface ServerErrorLogger {
  error(message: string): void;
  warn?(message: string): void;
  info?(message: string): void;
  debug?(message: string): void;
}

/** The operator's record of one failed request: the fields of Python's `record.guard_event` and of the
 *  guard's log records (`detail`: the operator's text, never sent to the client). */
export interface RequestFailedEvent {
  event: "request-failed";
  level: LogLevel;
  /** The kind the client was answered with (null: a JsonRpcError of a code no kind has). */
  kind: string | null;
  code: number;
  id: Id;
  method: string | null;
  /** The correlation id the client got (in its `error.data`), when the dialect gives one. */
  correlation_id: string | null;
  /** The thrown value's type: its `name` (an Error's class), or `typeof` for a non-Error. */
  exception: string;
  /** The stack trace, redacted by the guard module: secrets gone, frames and paths kept. */
  detail: string;
}

export interface ErrorResponseOptions extends ContextOptions {
  /** The request's method, for the operator's record. */
  method?: string | null;
  /** The dialect of the answer (default "canonical"). */
  dialect?: Dialect;
  /** How a JsonRpcError's message and data are redacted (the options of `redactWith` / `redactJsonValue`). */
  redaction?: RedactOptions;
  /** Where the record is logged as text, one call per failure. Default `console`; null: not logged. */
  logger?: ServerErrorLogger | null;
  /** Gets the record itself (for a structured log or metrics); what it throws is ignored. */
  onEvent?: (event: RequestFailedEvent) => void;
}

/** The guard module's own mapError: it is built into the guard module too (bindings/js/rust/lib.rs), so this
 *  entry needs no second module for the canonical response. */
interface MapErrorGlue {
  mapError(input: string, dialect: string, unixMillis: number, entropyHi: number, entropyLo: number): string;
}

const { redactWith, redactJsonValue } = redactionOn(callGuard);
/** RedactOptions' keys: checked before any failure needs them (a misspelt key must not wait for one). */
const REDACTION_KEYS: ReadonlySet<string> = new Set(Object.keys(REDACT_OPTION_KEYS));
const INTERNAL_ERROR_LEVEL = KINDS["internal-error"].logLevel;

function internalError(id: Id, dialect: Dialect, options: ContextOptions): ErrorResponse {
  const input = jsonOf({ kind: "internal-error", id }, "id");
  const d = text(dialect, "dialect");
  const [ms, hi, lo] = contextArgs(options.context);
  return JSON.parse(callGuard((g) => (g as unknown as MapErrorGlue).mapError(input, d, ms, hi, lo))) as ErrorResponse;
}

/** What was thrown, as the operator may see it: its type's name and its stack (or text). */
function described(thrown: unknown): { exception: string; trace: string } {
  try {
    if (thrown instanceof Error) {
      const name = String(thrown.name);
      const stack = typeof thrown.stack === "string" ? thrown.stack : `${name}: ${String(thrown.message)}`;
      return { exception: name, trace: stack };
    }
    return { exception: typeof thrown, trace: String(thrown) };
  } catch {
    return { exception: "unknown", trace: "the thrown value cannot be read" };
  }
}

/** A JsonRpcError's error object, redacted; undefined when it cannot be read (the caller fails closed). */
function redactedError(error: JsonRpcError, redaction: RedactOptions | undefined): ErrorObject | undefined {
  let code: number, message: string, data: JsonValue | undefined;
  try {
    ({ code, message, data } = error);
    if (!Number.isSafeInteger(code) || typeof message !== "string") return undefined;
  } catch {
    return undefined;
  }
  // The same options for both: `sensitiveKeys` means nothing to text, which the guest allows.
  const out: ErrorObject = { code, message: redactWith(message, redaction).text };
  if (data !== undefined && data !== null) out.data = redactJsonValue(data, redaction).value;
  return out;
}

/**
 * The JSON-RPC response a server sends for `thrown`, thrown while it handled request `id` (of `method`), and
 * one record of it for the operator.
 *
 * - A {@link JsonRpcError} (`JsonRpcError.fromKind(...)`, thrown on purpose) is answered as it is, its message
 *   and data redacted (`redaction`: the options of `redactJsonValue`): a hand-built one cannot leak either.
 * - Anything else (and a JsonRpcError that cannot be read) is the dialect's `internal-error` (in `canonical`:
 *   -32603 with a correlation id), as `mapError` renders it: nothing of the thrown value reaches the client.
 *
 * The record ({@link RequestFailedEvent}) goes to `onEvent` and, as text, to `logger` (default `console`) at
 * the kind's level (`error` for anything unexpected): the stack redacted by the guard module (secrets go,
 * frames and paths stay), never the thrown value itself. `id` must be a string, a number or null (anything
 * else throws the guest's `InvalidInputError`); a notification (no id) is owed no response: do not send it.
 */
export function errorResponse(thrown: unknown, id: Id = null, options: ErrorResponseOptions = {}): ErrorResponse {
  if (typeof options !== "object" || options === null) throw new ArgumentTypeError("options must be an object");
  const { method = null, dialect = "canonical", redaction, onEvent } = options;
  if (method !== null && typeof method !== "string") throw new ArgumentTypeError("options.method must be a string");
  if (onEvent !== undefined && typeof onEvent !== "function") throw new ArgumentTypeError("options.onEvent must be a function");
  const logger = options.logger === undefined ? console : options.logger;
  if (logger !== null && (typeof logger !== "object" || typeof logger.error !== "function")) {
    throw new ArgumentTypeError("options.logger must have an error method, or be null");
  }
  if (redaction !== undefined) {
    if (typeof redaction !== "object" || redaction === null) throw new ArgumentTypeError("options.redaction must be an object");
    const unknown = Object.keys(redaction).filter((k) => !REDACTION_KEYS.has(k));
    if (unknown.length > 0) {
      throw new ArgumentTypeError(`options.redaction has no option ${unknown.map((k) => `'${k}'`).join(", ")} (known: ${[...REDACTION_KEYS].join(", ")})`);
    }
  }
  // Also what checks the id and the dialect: the guest refuses what JSON-RPC cannot carry.
  let response = internalError(id, dialect, options);
  let kind: string | null = "internal-error";
  let level: LogLevel = INTERNAL_ERROR_LEVEL;
  if (thrown instanceof JsonRpcError) {
    const error = redactedError(thrown, redaction);
    if (error !== undefined) {
      response = { jsonrpc: "2.0", error, id: response.id };
      kind = thrown.kind;
      // Thrown on purpose: logged at its kind's level (a code no kind has: info).
      level = kind !== null && kind in KINDS ? KINDS[kind as ErrorKind].logLevel : "info";
    }
  }
  if (logger === null && onEvent === undefined) return response;
  const { exception, trace } = described(thrown);
  const data = response.error.data;
  const correlation = typeof data === "object" && data !== null && !Array.isArray(data) ? (data as { correlation_id?: unknown }).correlation_id : undefined;
  // One session for the record: its texts are one log stream.
  const session = new GuardSession({ timeoutMs: null });
  let event: RequestFailedEvent;
  try {
    const forLog = (t: string): string => session.upstreamLog(t).replace(/\n$/, "");
    event = {
      event: "request-failed",
      level,
      kind,
      code: response.error.code,
      id: typeof id === "string" ? forLog(id) : id,
      method: method === null ? null : forLog(method),
      correlation_id: typeof correlation === "string" ? correlation : null,
      exception: forLog(exception),
      detail: forLog(trace),
    };
  } finally {
    session.close();
  }
  try {
    const write = logger?.[level] ?? logger?.error;
    write?.call(
      logger,
      `jsonrpc-errors: request ${event.method ?? "?"} (id ${JSON.stringify(event.id)}) threw ${event.exception}; ` +
        `the client gets ${event.code} ${event.kind ?? "(a kind of its own)"}` +
        `${event.correlation_id === null ? "" : ` correlation_id=${event.correlation_id}`}\n${event.detail}`,
    );
  } catch {
    // The operator's logger failing must not turn into the answer.
  }
  try {
    onEvent?.(event);
  } catch {
    // Nor the callback.
  }
  return response;
}
