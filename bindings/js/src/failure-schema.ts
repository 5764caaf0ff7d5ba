// Generated from wit/world.wit (interface `guard`) by `cargo xtask gen`; do not edit.

import { ArgumentTypeError } from "./errors.js";
import { checkedText } from "./runtime.js";

/** An HTTP status an upstream refused a request with. */
export interface HttpRefusal {
  status: number;
  /** Its `Retry-After`, in seconds, when it gave one. */
  retryAfterSecs?: number;
}

/** Why the upstream can no longer answer. */
export type UpstreamFailure =
  /** It could not be started: the operating system's reason. */
  | { spawnFailed: string }
  /** It exited with this status. */
  | { exited: number }
  /** A signal ended it. */
  | { killed: number }
  /** It closed its output while still running. */
  | "closed-output";

/**
 * Why one request got no answer from an upstream reached request by request (over HTTP, each request is
 * an exchange of its own). The upstream is not gone: the next request is tried again.
 */
export type RequestFailure =
  /**
   * No answer could be had: the connection was refused or reset, the name did not resolve, TLS failed,
   * the response ended before its answer. The reason, naming no credential.
   */
  | { unreachable: string }
  /**
   * The upstream answered with an HTTP status and no JSON-RPC answer to the request (its body is never
   * passed on).
   */
  | { refused: HttpRefusal }
  /**
   * The upstream's session that the request was sent on is gone (HTTP 404 to a request that named it),
   * and no new one could be opened in its place.
   */
  | "session-gone";

/** The one member of `{name: payload}`: its name and payload. */
function onlyMember(value: unknown, expected: string): [string, unknown] {
  const entries = typeof value === "object" && value !== null ? Object.entries(value) : [];
  if (entries.length !== 1) throw new ArgumentTypeError(expected);
  return entries[0] as [string, unknown];
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new ArgumentTypeError(`${what} must be a string`);
  return checkedText(value);
}

function int(value: unknown, what: string, lo: number, hi: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < lo || value > hi) {
    throw new ArgumentTypeError(`${what} must be an integer from ${lo} to ${hi}`);
  }
  return value;
}

/** `upstream-failure` as the guard module's glue reads it (JSON: the WIT's case names, snake_case fields), each part checked. */
export function upstreamFailureJson(failure: UpstreamFailure): string {
  if (failure === "closed-output") return JSON.stringify(failure);
  const [key, payload] = onlyMember(failure, "failure must be {spawnFailed}, {exited}, {killed} or \"closed-output\"");
  switch (key) {
    case "spawnFailed":
      return JSON.stringify({ "spawn-failed": text(payload, "spawnFailed") });
    case "exited":
      return JSON.stringify({ "exited": int(payload, "exited", -2147483648, 2147483647) });
    case "killed":
      return JSON.stringify({ "killed": int(payload, "killed", -2147483648, 2147483647) });
  }
  throw new ArgumentTypeError("failure must be {spawnFailed}, {exited}, {killed} or \"closed-output\"");
}

/** `request-failure` as the guard module's glue reads it (JSON: the WIT's case names, snake_case fields), each part checked. */
export function requestFailureJson(failure: RequestFailure): string {
  if (failure === "session-gone") return JSON.stringify(failure);
  const [key, payload] = onlyMember(failure, "failure must be {unreachable}, {refused} or \"session-gone\"");
  switch (key) {
    case "unreachable":
      return JSON.stringify({ "unreachable": text(payload, "unreachable") });
    case "refused":
      return JSON.stringify({ "refused": httpRefusal(payload, "refused") });
  }
  throw new ArgumentTypeError("failure must be {unreachable}, {refused} or \"session-gone\"");
}

function httpRefusal(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null) throw new ArgumentTypeError(`${what} must be an object`);
  const fields = value as Record<string, unknown>;
  return {
    status: int(fields.status, `${what}.status`, 0, 65535),
    retry_after_secs: fields.retryAfterSecs == null ? null : int(fields.retryAfterSecs, `${what}.retryAfterSecs`, 0, Number.MAX_SAFE_INTEGER),
  };
}
