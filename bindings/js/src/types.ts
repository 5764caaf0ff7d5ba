// Public types of the `jsonrpc-errors` package (the generated taxonomy types live in ./taxonomy.ts).

import type { Category, Dialect, DialectFields, ErrorKind, Gate, KindFields } from "./taxonomy.js";
import type { ValidateFields } from "./validate-schema.js";

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON-RPC id. */
export type Id = string | number | null;

/** A JSON-RPC 2.0 error object. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: JsonValue;
}

/** The members every `mapError` input may carry beside the kind's own fields. */
export interface ErrorInputCommon {
  /** The id of the request the error answers (default null). */
  id?: Id;
  /** Echoed where the dialect carries one; generated from the call context when absent. */
  correlation_id?: string;
  /** RFC 3339 timestamp (Watchgate); taken from the call context when absent. */
  timestamp?: string;
}

/** `{kind, ...fields}` for one kind: the fields are checked against the taxonomy at compile time. */
export type ErrorInputOf<K extends ErrorKind> = { kind: K } & ErrorInputCommon & KindFields[K];

/** The input of `mapError`: one error, discriminated by `kind`. */
export type ErrorInput = { [K in ErrorKind]: ErrorInputOf<K> }[ErrorKind];

/** The input of `mapError` to dialect `D`: one error, plus the dialect's generic data fields (Watchgate's
 *  `details`/`request_id`, the Error Model's `field`/`reason`/`suggestion`/`context`), accepted on every kind. */
export type ErrorInputIn<D extends Dialect> = ErrorInput & DialectFields[D];

/** A JSON-RPC error response (the `error` style of every dialect). */
export interface ErrorResponse {
  jsonrpc: "2.0";
  error: ErrorObject;
  id: Id;
}

/** The MCP tool-result style: the error is reported inside a successful result. */
export interface ToolErrorResult {
  content: { type: "text"; text: string }[];
  isError: true;
}

/** The domain-result style (error-model): the error is a value inside a successful result. */
export interface DomainErrorResult {
  error: {
    code: number;
    message: string;
    retryable: boolean;
    details: { [key: string]: JsonValue };
  };
}

/** A dialect that reports errors as results. */
export interface ResultResponse {
  jsonrpc: "2.0";
  result: ToolErrorResult | DomainErrorResult;
  id: Id;
}

/** What `mapError` and `sanitize` return. */
export type JsonRpcResponse = ErrorResponse | ResultResponse;

/** The call context: the clock and a random number (the guest has neither). Default: now and crypto randomness. */
export interface CallContext {
  /** Milliseconds since the Unix epoch. */
  unixMillis: number;
  /** A u64: a bigint, or a non-negative safe integer. */
  entropy: bigint | number;
}

/** Options of the calls that can generate correlation ids or timestamps. */
export interface ContextOptions {
  context?: CallContext;
}

/** A line discarded unread: its first and last bytes as they passed (up to 4 KiB each), from which the session reads its id. */
export interface OversizeOptions extends ContextOptions {
  head?: string | Uint8Array;
  tail?: string | Uint8Array;
}

export type { BatchPolicy } from "./validate-schema.js";

/** `validate`'s options (`validate-options` in wit/world.wit, generated) and the call context. */
export interface ValidateOptions extends ContextOptions, ValidateFields {}

/** A well-formed request. */
export interface ValidRequest {
  valid: true;
  id?: Id;
  method: string;
}

/** What `validate` returns: the verdict, the error response, or for an allowed batch one entry per member. */
export type ValidateResult = ValidRequest | ErrorResponse | (ValidRequest | ErrorResponse)[];

export type RedactionCategory = "token" | "credential" | "pii" | "path" | "stacktrace" | "environment";

/** One redacted span: UTF-8 byte offsets into the input; the secret itself is never returned. */
export interface Finding {
  rule: string;
  category: RedactionCategory;
  start: number;
  end: number;
}

export interface Redaction {
  text: string;
  findings: Finding[];
}

// Redaction options: generated from wit/world.wit (`redaction-options`).
export type { ExtraRule, RedactionMethod, RedactOptions } from "./redaction-schema.js";

/** One secret found in a JSON document: `path` is the JSON Pointer of the string holding it, `start`/`end`
 *  UTF-8 byte offsets into that string; `key` is set when the secret was in the member's name. */
export interface JsonFinding {
  rule: string;
  category: string;
  path: string;
  start: number;
  end: number;
  key?: true;
}

export interface JsonRedaction {
  value: JsonValue;
  findings: JsonFinding[];
}

export type LogLevel = "error" | "warn" | "info" | "debug";

export type FieldTypeName = "string" | "u64" | "s32" | "bool" | "list<string>";

/** One kind as `explain` (under its dialect) and `kinds` (under `canonical`) describe it. */
export interface ExplainedKind {
  kind: ErrorKind;
  code: number | null;
  message: string;
  summary: string;
  category: Category;
  gate: Gate | null;
  retryable: boolean;
  retry_hint: string;
  http_status: number;
  log_level: LogLevel;
  fields: { name: string; type: FieldTypeName; required: boolean }[];
}

/** What `explain` returns: every kind a dialect renders with the code. */
export interface Explanation {
  dialect: Dialect;
  code: number;
  kinds: ExplainedKind[];
}

export type CodesFormat = "markdown" | "json";
