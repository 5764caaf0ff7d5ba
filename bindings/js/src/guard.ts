// Guard sessions: a JSON-RPC proxy's per-message decisions, decided by the guest (wit/world.wit, interface
// `guard`). A proxy hands a session every line it reads and carries out the steps it gets back, in order;
// what is forwarded, answered, sanitized and redacted, and what every pending request is owed when the
// upstream fails, is the guest's, identical in every runtime.

import { ArgumentTypeError, WasmFaultError } from "./errors.js";
import { INTERNAL_ERROR, callGuard, checkedBytes, checkedText, contextArgs, guardGenerationNow, type GlueGuardSession } from "./runtime.js";
import { requestFailureJson, upstreamFailureJson, type RequestFailure, type UpstreamFailure } from "./failure-schema.js";
import { guardOptionsJson, type GuardOptions, type GuardOutcome, type GuardSettings } from "./guard-schema.js";
import type { PolicyDefaults } from "./policy-defaults.js";
import type { ContextOptions, Id, OversizeOptions } from "./types.js";

// The session's options and steps, and why its upstream failed, generated from wit/world.wit (`cargo xtask gen`).
export type { HttpRefusal, RequestFailure, UpstreamFailure } from "./failure-schema.js";
export type { EventName, EventStep, ForwardStep, GuardOptions, GuardOutcome, GuardSettings, GuardStep, LogLevel, Peer, SendStep } from "./guard-schema.js";
// A policy file's defaults, generated from wit/world.wit (`policy-defaults`).
export type { PolicyDefaults } from "./policy-defaults.js";

/** `{name: value}` as the glue's flat list. */
function flatEnv(env: Record<string, string | undefined> | undefined): string[] {
  // Unset: the process environment where there is one (Node), as in Python; none in a browser.
  const source = env ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  return Object.entries(source).flatMap(([k, v]) => (typeof v === "string" ? [k, v] : []));
}

/**
 * Checks a guard policy file: its defaults, or `InvalidInputError` whose `.error.data` says where it is wrong
 * (`line`, `column`, `details`): the same words as `jsonrpc-errors guard --check-config` and Python's
 * `check_policy`.
 */
export function checkPolicy(policy: string, env?: Record<string, string | undefined>): PolicyDefaults {
  if (typeof policy !== "string") throw new ArgumentTypeError("policy must be a string");
  const text = checkedText(policy);
  return JSON.parse(callGuard((g) => g.checkPolicy(text, flatEnv(env)))) as PolicyDefaults;
}

const encoder = new TextEncoder();

/**
 * A line or piece as bytes, refused (with the guest's `too-large` error, as every other call and the Python
 * and Rust sessions refuse it) when longer than the guest takes: copied in, it would exhaust the module's
 * memory and trap, ending every session.
 */
function bytes(line: unknown, what: string): Uint8Array {
  if (typeof line === "string") return checkedBytes(encoder.encode(checkedText(line)));
  if (line instanceof Uint8Array) return checkedBytes(line);
  throw new ArgumentTypeError(`${what} must be a string or a Uint8Array`);
}

function u64(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ArgumentTypeError(`${what} must be a non-negative safe integer`);
  }
  return value;
}

/**
 * One session between one client and one upstream. Every method returns the {@link GuardOutcome} (the
 * `...Json` methods: its JSON text). A session lives in the guard module's memory: if that module traps,
 * it is re-instantiated and every open session ends (later calls throw {@link WasmFaultError}). Call
 * `close()` to free it.
 */
export class GuardSession {
  #inner: GlueGuardSession | undefined;
  readonly #generation: number;

  constructor(options: GuardOptions = {}) {
    const json = guardOptionsJson(options);
    this.#inner = callGuard((g) => new g.GuardSession(json));
    this.#generation = guardGenerationNow();
  }

  #call(f: (s: GlueGuardSession) => string): string {
    const inner = this.#inner;
    if (inner === undefined || this.#generation !== guardGenerationNow()) {
      this.#inner = undefined;
      throw new WasmFaultError({ ...INTERNAL_ERROR });
    }
    try {
      return callGuard(() => f(inner));
    } catch (e) {
      if (e instanceof WasmFaultError) this.#inner = undefined;
      throw e;
    }
  }

  /** A line from the client (its newline removed). */
  clientLineJson(line: string | Uint8Array, options?: ContextOptions): string {
    const b = bytes(line, "line");
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.clientLine(b, ms, hi, lo));
  }

  /**
   * Replaces the policy file for the requests from now on (a reload). A refused document throws
   * `InvalidInputError` (where it is wrong in `.error.data`) and leaves the policy as it was.
   */
  setPolicy(policy: string, env?: Record<string, string | undefined>): void {
    if (typeof policy !== "string") throw new ArgumentTypeError("policy must be a string");
    const text = checkedText(policy);
    this.#call((s) => s.setPolicy(text, flatEnv(env)));
  }

  /**
   * A line from client stream `stream` (an HTTP front's request; stream 0: the session's own): requests are
   * renamed upstream and answered on their stream; steps toward the client name it from then on.
   */
  clientLineOnJson(stream: number, line: string | Uint8Array, options?: ContextOptions): string {
    const n = u64(stream, "stream");
    const b = bytes(line, "line");
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.clientLineOn(n, b, ms, hi, lo));
  }

  /** Client stream `stream` went away before its answers: its pending requests are cancelled upstream. */
  streamClosedJson(stream: number, options?: ContextOptions): string {
    const n = u64(stream, "stream");
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.streamClosed(n, ms, hi, lo));
  }

  clientLineOn(stream: number, line: string | Uint8Array, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.clientLineOnJson(stream, line, options)) as GuardOutcome;
  }

  streamClosed(stream: number, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.streamClosedJson(stream, options)) as GuardOutcome;
  }

  /**
   * A client line longer than `maxBytes`, discarded unread: its length, and (`head`, `tail`) its first and last
   * bytes as they passed, from which the session reads its id to answer it with.
   */
  clientOversizeJson(length: number, options?: OversizeOptions): string {
    const n = u64(length, "length");
    const [head, tail] = [bytes(options?.head ?? "", "head"), bytes(options?.tail ?? "", "tail")];
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.clientOversize(n, head, tail, ms, hi, lo));
  }

  /** A line from the upstream's output (its newline removed). */
  upstreamLineJson(line: string | Uint8Array, options?: ContextOptions): string {
    const b = bytes(line, "line");
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.upstreamLine(b, ms, hi, lo));
  }

  /**
   * An upstream line longer than the proxy accepts, discarded unread: as `clientOversizeJson` (a response whose
   * id its ends show answers its request at once).
   */
  upstreamOversizeJson(length: number, options?: OversizeOptions): string {
    const n = u64(length, "length");
    const [head, tail] = [bytes(options?.head ?? "", "head"), bytes(options?.tail ?? "", "tail")];
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.upstreamOversize(n, head, tail, ms, hi, lo));
  }

  /** The upstream can no longer answer: every pending request is answered. */
  upstreamFailedJson(failure: UpstreamFailure, options?: ContextOptions): string {
    const json = upstreamFailureJson(failure);
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.upstreamFailed(json, ms, hi, lo));
  }

  /**
   * Request `id` (its JSON text, as the upstream was sent it) got no answer from an upstream reached request
   * by request: it alone is answered, in the dialect. An id that is not pending is answered nothing.
   */
  upstreamRequestFailedJson(id: string, failure: RequestFailure, options?: ContextOptions): string {
    if (typeof id !== "string") throw new ArgumentTypeError("id must be a string (JSON text)");
    const json = requestFailureJson(failure);
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.upstreamRequestFailed(id, json, ms, hi, lo));
  }

  /**
   * The upstream's response to request `id` (its JSON text, as the upstream was sent it) ended with nothing
   * more to come: a request answered with many responses (A2A's streaming methods) that got some is settled
   * (an `end` step for its stream); one still owed its answer is answered as a cut exchange is. An id that is
   * not pending is answered nothing.
   */
  upstreamExchangeEndedJson(id: string, options?: ContextOptions): string {
    if (typeof id !== "string") throw new ArgumentTypeError("id must be a string (JSON text)");
    const checked = checkedText(id);
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.upstreamExchangeEnded(checked, ms, hi, lo));
  }

  /** The settings the session resolved when it opened (`session-settings`: its options, else the policy
   *  file's `[defaults]`, else the built-in defaults), as JSON text. */
  settingsJson(): string {
    return this.#call((s) => s.settings());
  }

  /** The settings the session resolved when it opened: `timeout_ms` null is no limit. */
  settings(): GuardSettings {
    return JSON.parse(this.settingsJson()) as GuardSettings;
  }

  /** Answers (and cancels upstream) every request whose deadline has passed. */
  expireJson(options?: ContextOptions): string {
    const [ms, hi, lo] = contextArgs(options?.context);
    return this.#call((s) => s.expire(ms, hi, lo));
  }

  /**
   * Bytes of the upstream's stderr as read, in any pieces, for the operator's log: the redacted text of the
   * lines they complete (secrets redacted, traces and paths kept). Text is cut only at line ends: an
   * unfinished line is held until its end arrives (or `upstreamStderrEnd`); a line over 1 MiB is logged in
   * pieces, cut after a space. A string is taken as its UTF-8 bytes.
   */
  upstreamStderr(data: string | Uint8Array): string {
    const b = bytes(data, "data");
    return this.#call((s) => s.upstreamStderr(b, false));
  }

  /** The upstream's stderr has ended: the redacted text of the unfinished line held, if any. */
  upstreamStderrEnd(): string {
    return this.#call((s) => s.upstreamStderr(new Uint8Array(0), true));
  }

  /**
   * Other text about the upstream for the operator's log, whole lines: redacted as its stderr. Successive
   * calls (with `upstreamStderr`'s) are one stream: a private-key block one call's text leaves open (BEGIN,
   * no END yet) is redacted in the next call's text up to its END line.
   */
  upstreamLog(text: string): string {
    if (typeof text !== "string") throw new ArgumentTypeError("text must be a string");
    const checked = checkedText(text);
    return this.#call((s) => s.upstreamLog(checked));
  }

  clientLine(line: string | Uint8Array, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.clientLineJson(line, options)) as GuardOutcome;
  }

  clientOversize(length: number, options?: OversizeOptions): GuardOutcome {
    return JSON.parse(this.clientOversizeJson(length, options)) as GuardOutcome;
  }

  upstreamLine(line: string | Uint8Array, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.upstreamLineJson(line, options)) as GuardOutcome;
  }

  upstreamOversize(length: number, options?: OversizeOptions): GuardOutcome {
    return JSON.parse(this.upstreamOversizeJson(length, options)) as GuardOutcome;
  }

  upstreamFailed(failure: UpstreamFailure, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.upstreamFailedJson(failure, options)) as GuardOutcome;
  }

  upstreamRequestFailed(id: string, failure: RequestFailure, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.upstreamRequestFailedJson(id, failure, options)) as GuardOutcome;
  }

  upstreamExchangeEnded(id: string, options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.upstreamExchangeEndedJson(id, options)) as GuardOutcome;
  }

  expire(options?: ContextOptions): GuardOutcome {
    return JSON.parse(this.expireJson(options)) as GuardOutcome;
  }

  /** Frees the session (idempotent). */
  close(): void {
    const inner = this.#inner;
    this.#inner = undefined;
    if (inner !== undefined && this.#generation === guardGenerationNow()) inner.free();
  }
}
