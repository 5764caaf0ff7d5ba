// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

import { ArgumentTypeError } from "./errors.js";
import { checkedText } from "./runtime.js";
import type { Dialect } from "./taxonomy.js";
import type { Id } from "./types.js";

/** Where a step writes. */
export type Peer = "client" | "upstream";

/** What an event reports. */
export type EventName = "answered" | "sanitized" | "redacted" | "repaired" | "dropped" | "client-cancelled" | "upstream-ended" | "blocked" | "audited";

/** The level a kind is logged at. */
export type LogLevel = "error" | "warn" | "info" | "debug";

/** Write the line just given to the session, byte for byte, to `to`. */
export interface ForwardStep {
  step: "forward";
  to: Peer;
  /** The client stream, once the session serves several (`client-line-on`). */
  stream?: number;
}

/** Write `line` (one JSON-RPC message or batch, no newline in it) to `to`. */
export interface SendStep {
  step: "send";
  to: Peer;
  /** The client stream, once the session serves several (`client-line-on`). */
  stream?: number;
  line: string;
}

/** A record for the operator's log and the metrics: never a message body. */
export interface EventStep {
  step: "event";
  event: EventName;
  level: LogLevel;
  kind?: string;
  /** The code the client got (none for an `isError` tool result). */
  code?: number;
  category?: string;
  gate?: string;
  /** The correlation id the client's response carries, when it carries one. */
  correlation_id?: string;
  /** The JSON-RPC id of the request concerned. */
  id?: Id;
  method?: string;
  detail?: string;
  /** A policy decision's rule (or category): never the value it found. */
  rule?: string;
  /**
   * The tool (or method) a policy decision was taken for, as a label of a bounded set: a tool the
   * upstream listed or the policy names (or the glob that matched it), a method MCP defines, else
   * `other` (the name then in `detail`); at most 64 bytes.
   */
  tool?: string;
}

/**
 * The request client stream `stream` was owed answers for, answered with many (A2A's streaming methods:
 * each event a response under its id), is settled: nothing more is written to that stream, and a shell
 * that frames each request's answers as one response (an HTTP front's event stream) ends it. A request
 * answered once gets none: its answer ends its stream.
 */
export interface EndStep {
  step: "end";
  /** The client stream, once the session serves several (`client-line-on`). */
  stream?: number;
}

/** One step of a call, carried out in order. */
export type GuardStep = ForwardStep | SendStep | EventStep | EndStep;

/** What a session call returns. */
export interface GuardOutcome {
  /** The steps to carry out, in order. */
  steps: GuardStep[];
  /** Client requests still waiting for an answer. */
  pending: number;
  /** When to call `expire` (unix milliseconds), or null. */
  deadline: number | null;
}

/**
 * Adding an option: a field here (an `option` or a `list`, so that "not given" is every shell's default;
 * a field that is neither states its default in a doc line "Default: `value`."), then `cargo xtask gen`
 * (the guest's reader among the mirrors), then its meaning in the guest (`guest/src/api.rs`:
 * `guard_session`; `guest/src/component.rs`: one line from the record) (docs/where-to-change.md).
 * How a session behaves.
 */
export interface GuardOptions {
  /**
   * The dialect the session's own errors are written in. Not given: the policy file's `dialect`, else
   * `canonical`.
   */
  dialect?: Dialect | null;
  /**
   * Largest client message in bytes. Not given: the policy file's `max_bytes`, else 10 MiB (the taxonomy's
   * default).
   */
  maxBytes?: number | null;
  /**
   * Whether a client batch is split and relayed, or refused. Not given: the policy file's `batch`, else
   * `reject`.
   */
  batch?: "reject" | "allow" | null;
  /**
   * How long a request may wait for the upstream, in milliseconds (progress notifications for it
   * restart the wait); 0 (null in Python, TypeScript and the JSON form): no limit. Not given: the
   * policy file's `timeout`, else 50 000 (50 s: below the 60 s most MCP clients wait, so they get the
   * guard's answer rather than their own timeout).
   */
  timeoutMs?: number | null;
  /**
   * How errors and logs name the upstream (a program name, a URL: credentials are never shown).
   * Default: `upstream`.
   */
  upstream?: string;
  /**
   * The longest text of a failed tool result passed on (at least 64); a longer one keeps its start and
   * its end, the middle cut. Not given: the policy file's `failed_result_bytes`, else 8 KiB.
   */
  failedResultBytes?: number | null;
  /**
   * A policy file (TOML: per-tool and per-method timeouts, redaction options and scopes, actions;
   * docs/policy.md). One that `check-policy` refuses makes the session answer every request
   * with the configuration error: nothing is relayed without the policy it was given.
   */
  policy?: string | null;
  /** The environment the policy's `hash_key_env` is read from (name, value). */
  policyEnv?: Record<string, string | undefined>;
  /**
   * The environment whose secret-looking values (by name, as `set-environment` keeps them) this
   * session redacts from everything it writes and logs; none: the one `set-environment` configured.
   */
  environment?: Record<string, string | undefined> | null;
  /**
   * Values this session redacts from everything it writes and logs whatever they are named: the
   * credentials the shell itself sends its upstream (its header values, a URL's password and query
   * values), which an upstream may reflect in an error. Each is kept as an environment's secret
   * value is (at least 8 bytes, not a word, a host, a number or a path) and matched in the same
   * encoded forms (base64, percent-encoding), beside the environment's.
   */
  upstreamCredentials?: readonly string[] | null;
  /**
   * Whether the session's client streams (`client-line-on`) belong to different clients, as an HTTP
   * front's shared stateless child's do (none or false: one client's, as a legacy session's requests
   * and GET stream). Then what the upstream sends reaches a stream only when it names an id or a
   * progress token that stream owns: a request the upstream raises is answered with an error at once
   * (no client can be asked it, nor answer it), and a notification that answers no request is dropped.
   */
  manyClients?: boolean | null;
  /**
   * Longest upstream line in bytes the shell reads (a longer one it discards as it streams and reports
   * with `upstream-oversize`). Not given: the policy file's `max_upstream_bytes`, else the largest line the
   * component takes (64 MiB). The shell reads the resolved value from `settings`.
   */
  maxUpstreamBytes?: number | null;
}

function text(value: unknown, what: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw new ArgumentTypeError(`${what} must be a string`);
  return checkedText(value);
}

function flag(value: unknown, what: string): boolean {
  if (typeof value !== "boolean") throw new ArgumentTypeError(`${what} must be a boolean`);
  return value;
}

function u64(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ArgumentTypeError(`${what} must be a non-negative safe integer`);
  }
  return value;
}

/** `{name: value}` as (name, value) pairs; unset values left out. */
function pairs(env: unknown, what: string): [string, string][] {
  if (typeof env !== "object" || env === null) throw new ArgumentTypeError(`${what} must be an object of strings`);
  return Object.entries(env as Record<string, unknown>).flatMap(([k, v]): [string, string][] =>
    typeof v === "string" ? [[checkedText(k), checkedText(v)]] : [],
  );
}

/** A list of strings, each checked. */
function texts(value: unknown, what: string): string[] {
  if (!Array.isArray(value)) throw new ArgumentTypeError(`${what} must be an array of strings`);
  return value.map((v: unknown) => {
    if (typeof v !== "string") throw new ArgumentTypeError(`${what} must be an array of strings`);
    return checkedText(v);
  });
}

/** The process environment where there is one (Node), as in Python; none in a browser. */
function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

/** The options as the guard module's glue reads them (`guard-options` as JSON, snake_case keys), each checked. */
export function guardOptionsJson(options: GuardOptions): string {
  if (typeof options !== "object" || options === null) throw new ArgumentTypeError("options must be an object");
  return JSON.stringify({
    dialect: options.dialect == null ? null : text(options.dialect, "dialect", ""),
    max_bytes: options.maxBytes == null ? null : u64(options.maxBytes, "maxBytes"),
    batch: options.batch == null ? null : text(options.batch, "batch", ""),
    timeout_ms: options.timeoutMs === undefined ? undefined : options.timeoutMs === null ? 0 : u64(options.timeoutMs, "timeoutMs"),
    upstream: text(options.upstream, "upstream", "upstream"),
    failed_result_bytes: options.failedResultBytes == null ? null : u64(options.failedResultBytes, "failedResultBytes"),
    policy: options.policy == null ? null : text(options.policy, "policy", ""),
    policy_env: pairs(options.policyEnv ?? processEnv(), "policyEnv"),
    environment: options.environment == null ? null : pairs(options.environment, "environment"),
    upstream_credentials: options.upstreamCredentials == null ? null : texts(options.upstreamCredentials, "upstreamCredentials"),
    many_clients: options.manyClients == null ? null : flag(options.manyClients, "manyClients"),
    max_upstream_bytes: options.maxUpstreamBytes == null ? null : u64(options.maxUpstreamBytes, "maxUpstreamBytes"),
  });
}

/**
 * A session's settings as it resolved them when it opened: each the caller's option, else the policy
 * file's `[defaults]`, else the built-in default. A shell takes what its own readers need (its line
 * limits) from here, so no shell keeps a default or a merge rule of its own.
 */
export interface GuardSettings {
  dialect: Dialect;
  /** Largest client message, in bytes. */
  max_bytes: number;
  batch: "reject" | "allow";
  /** How long a request may wait for the upstream, in milliseconds; none: no limit. */
  timeout_ms: number | null;
  /** The longest text of a failed tool result passed on. */
  failed_result_bytes: number;
  /** Longest upstream line, in bytes. */
  max_upstream_bytes: number;
}
