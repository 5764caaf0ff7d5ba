// `GuardedTransport`: an SDK transport (or a `LineTransport`) to an upstream server with the guard in front of
// it. Every line goes to the guard session; the steps it returns are carried out in order (events to the
// operator, lines to either side), on the session's clock.

import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { ArgumentTypeError, JsonRpcErrorsError, WasmFaultError } from "../errors.js";
import {
  GuardSession,
  checkPolicy,
  type EventStep,
  type ForwardStep,
  type GuardOptions,
  type GuardOutcome,
  type GuardSettings,
  type SendStep,
  type UpstreamFailure,
} from "../guard.js";
import type { Dialect } from "../taxonomy.js";
import { type Arrival, type LineEnds, type LineTransport, NOTHING_ARRIVED, carriesLines, endsOf, parsed, stringifiedBytes, tooLongForTheGuard } from "./lines.js";
import { redactedAlone } from "./log.js";

export interface GuardTransportOptions {
  /** Default "canonical", as the CLI. */
  dialect?: Dialect;
  /** How long a request may wait for the upstream (progress restarts the wait); 0 or null: no limit. Not
   *  given: the policy file's, else 50,000 ms, as the CLI (the session resolves it: `settings`). */
  timeoutMs?: number | null;
  /** Largest message from the client side in bytes (not given: the policy file's, else 10 MiB). */
  maxBytes?: number | null;
  batch?: "reject" | "allow";
  /** How errors and logs name the upstream, e.g. `stdio:server` (credentials in a URL are never shown). */
  upstream?: string;
  /** The longest text of a failed tool result passed on (not given: the policy file's, else 8 KiB, as the
   *  CLI's --failed-result-bytes). */
  failedResultBytes?: number | null;
  /**
   * A policy file's text (TOML, as `jsonrpc-errors guard --config FILE` reads it: per-tool timeouts,
   * redaction scopes, actions, ...), handed to the session as it is: the guard module reads it and decides
   * what it means. As with the CLI, the options above override its `[defaults]`, which override the
   * built-in defaults. A document the module refuses throws `InvalidInputError` from the constructor
   * (`.error.data`: `line`, `column`, `details`). `setPolicy` reloads it.
   */
  policy?: string | null;
  /** The environment the policy's `hash_key_env` is read from (default: `process.env` in Node, none in a browser). */
  policyEnv?: Record<string, string | undefined>;
  /** The upstream's environment (the `env` of the SDK's `StdioClientTransport`), whose secret-looking values
   *  the session redacts from everything it passes on and logs, in place of the module's (`setEnvironment`). */
  environment?: Record<string, string | undefined>;
  /** Every event the guard reports (answered, sanitized, redacted, dropped, ...): for the operator's log
   *  and metrics. Events carry no message body; `detail` is redacted (it keeps stack traces and paths). */
  onEvent?: (event: EventStep) => void;
  /** What the guard is told when an SDK transport closes, or loses its connection (`error`: what it
   *  reported). Default "closed-output": the SDK's transports do not say whether a process exited, or with
   *  which status. Only the operator's log shows it. A `LineTransport` says itself, in its `onclose`. */
  upstreamFailure?: (error?: Error) => UpstreamFailure;
}
/** How long the session outlives its transport for the upstream's last stderr (`upstreamStderr`). */
const LATE_LOG_MS = 5_000;

/** How long an SDK transport that lost its connection gets to close (and deliver what it still has) before
 *  the guard answers for the upstream: the CLI's wait between an upstream's exit and its output's end. */
const CONNECTION_SETTLE_MS = 500;

/** setTimeout's longest delay; a later deadline is waited for in steps (the session re-reports it). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;
function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * Whether an SDK transport's error means its connection to the upstream is gone, not that one message
 * failed. The SDK's transports report a message they could not parse (a stray `print`, a schema mismatch)
 * as a SyntaxError or a ZodError: that costs the message only. A lost connection shows as fetch's TypeError
 * ("fetch failed" when a request cannot reach the server, "terminated" when its response breaks), a socket's
 * or a pipe's system error (ECONNRESET, EPIPE, ...), or, from the Streamable HTTP transport, only as the text
 * of the error it makes of a broken response stream.
 */
function lostConnection(error: Error): boolean {
  if (error.name === "SyntaxError" || error.name === "ZodError") return false;
  if (error instanceof TypeError || typeof (error as { code?: unknown }).code === "string") return true;
  return /^(SSE stream disconnected|Failed to reconnect SSE stream|Maximum reconnection attempts)/.test(error.message);
}

/**
 * An SDK `Transport` to an upstream server with the guard in front of it: hand it to `Client.connect`, or
 * pump a proxy's client-facing transport into it. `inner` is the transport to the upstream: an SDK one (a
 * `StdioClientTransport`, a `StreamableHTTPClientTransport`, one end of an `InMemoryTransport` pair, ...) or
 * a {@link LineTransport}.
 *
 * - `send` (the client side's messages) checks each message with the guard (`clientLine` of its JSON text):
 *   a forwarded message is passed to `inner.send` as the same object, with the same send options; a message
 *   the guard answers (an id already in flight, the upstream gone, ...) is answered through `onmessage`.
 *   `sendLine` does the same for a line as the client wrote it.
 * - The upstream's messages go through the guard too: relayed to `onmessage` as they came (with their extra
 *   info), or rewritten (sanitized errors, redacted `isError` results), or dropped.
 * - With `onrawline` set, what goes to the client side is handed on as its line instead (the upstream's bytes
 *   as read from a `LineTransport`, or the guard's own line); with a `LineTransport` inside, what goes
 *   upstream is the client's line exactly: between two line transports, ids and numbers keep their spelling.
 * - A request that waits longer than `timeoutMs` is answered with the timeout error and cancelled upstream.
 * - When `inner` closes (or cannot start, or an SDK transport loses its connection: a failed write, a broken
 *   stream), every pending request is answered through `onmessage` before `onclose` is called, and every
 *   later one too: the client never waits for an answer that cannot come, and `send` never throws for it.
 */
export class GuardedTransport implements Transport, LineTransport {
  readonly inner: Transport | LineTransport;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  /** When set, everything for the client side arrives here as its line, and `onmessage` is not called. */
  onrawline?: ((line: string | Uint8Array) => void) | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;

  readonly #lines: LineTransport | undefined;
  readonly #sessionOptions: GuardOptions;
  readonly #session: GuardSession;
  readonly #settings: GuardSettings;
  #sessionFreed = false;
  readonly #onEvent: ((event: EventStep) => void) | undefined;
  readonly #upstreamFailure: (error?: Error) => UpstreamFailure;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDeadline: number | null = null;
  #pending = 0;
  /** What the session was told when the upstream could no longer answer. */
  #failure: UpstreamFailure | undefined;
  #lostTimer: ReturnType<typeof setTimeout> | undefined;
  /** Errors the inner transport reported itself (a failed write it also rejects is not reported twice). */
  readonly #reported = new WeakSet<object>();
  #closed = false;
  #closing: Promise<void> | undefined;
  /** The session's module trapped: nothing more can be decided, so nothing more is relayed. */
  #broken = false;

  constructor(inner: Transport | LineTransport, options: GuardTransportOptions = {}) {
    if (typeof inner !== "object" || inner === null || (typeof (inner as Transport).send !== "function" && !carriesLines(inner))) {
      throw new ArgumentTypeError("inner must be an MCP SDK Transport or a LineTransport");
    }
    if (typeof options !== "object" || options === null) throw new ArgumentTypeError("options must be an object");
    const { onEvent, upstreamFailure } = options;
    if (onEvent !== undefined && typeof onEvent !== "function") throw new ArgumentTypeError("onEvent must be a function");
    if (upstreamFailure !== undefined && typeof upstreamFailure !== "function") {
      throw new ArgumentTypeError("upstreamFailure must be a function");
    }
    if (options.policy != null && typeof options.policy !== "string") throw new ArgumentTypeError("policy must be a string");
    // A refused policy file is thrown here, with line and column, before anything starts.
    if (options.policy != null) checkPolicy(options.policy, options.policyEnv);
    // The options go to the session as given (undefined: not given): it resolves the rest (`settings`).
    const sessionOptions: GuardOptions = {};
    if (options.dialect !== undefined) sessionOptions.dialect = options.dialect;
    if (options.timeoutMs !== undefined) sessionOptions.timeoutMs = options.timeoutMs;
    if (options.maxBytes !== undefined) sessionOptions.maxBytes = options.maxBytes;
    if (options.failedResultBytes !== undefined) sessionOptions.failedResultBytes = options.failedResultBytes;
    if (options.batch !== undefined) sessionOptions.batch = options.batch;
    if (options.upstream !== undefined) sessionOptions.upstream = options.upstream;
    if (options.environment !== undefined) sessionOptions.environment = options.environment;
    if (options.policy != null) {
      sessionOptions.policy = options.policy;
      if (options.policyEnv !== undefined) sessionOptions.policyEnv = options.policyEnv;
    }
    this.#session = new GuardSession(sessionOptions);
    this.#settings = this.#session.settings();
    // A session made after this one is freed (`#decide`) starts from what this one resolved.
    this.#sessionOptions = {
      ...sessionOptions,
      dialect: this.#settings.dialect,
      batch: this.#settings.batch,
      timeoutMs: this.#settings.timeout_ms,
      maxBytes: this.#settings.max_bytes,
      failedResultBytes: this.#settings.failed_result_bytes,
    };
    this.#onEvent = onEvent;
    // The end of a transport that says no more is `closed-output` (the contract: `upstream-failed` in the WIT).
    this.#upstreamFailure = upstreamFailure ?? (() => "closed-output");
    this.inner = inner;
    if (carriesLines(inner)) {
      this.#lines = inner;
      inner.onrawline = (line) => this.#fromUpstream(line, { line });
      inner.onoversize = (length, ends) => this.#fromUpstreamOversize(length, ends);
      inner.onclose = (failure) => this.#innerClosed(failure);
      inner.onerror = (error) => this.onerror?.(error);
      return;
    }
    if (typeof inner.setProtocolVersion === "function") {
      this.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
    }
    inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      const line = JSON.stringify(message);
      this.#fromUpstream(stringifiedBytes(line), { line, message, extra });
    };
    inner.onerror = (error: Error) => this.#innerError(error);
    inner.onclose = () => this.#innerClosed();
  }

  /** The inner transport's session id (Streamable HTTP has one). */
  get sessionId(): string | undefined {
    return (this.inner as Partial<Transport>).sessionId;
  }

  /** What the session resolved when it opened (the options given, else the policy file's `[defaults]`, else
   *  the built-in defaults). */
  get settings(): GuardSettings {
    return this.#settings;
  }

  /** Client requests waiting for the upstream. */
  get pending(): number {
    return this.#pending;
  }

  /** Whether the transport has closed. The guard still answers what the client side sends (the upstream
   *  is gone: every request gets the error that says so). */
  get closed(): boolean {
    return this.#closed;
  }

  async start(): Promise<void> {
    try {
      await this.inner.start();
    } catch (error) {
      // The upstream never came up: from now on the guard answers every request itself.
      this.#upstreamEnded({ spawnFailed: asError(error).message });
      throw error;
    }
  }

  /** A message from the client side, on its way to the upstream. Never throws for a request: one that
   *  cannot reach the upstream is answered by the guard. */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const line = JSON.stringify(message);
    await this.#fromClient(stringifiedBytes(line), { line, message, options });
  }

  /**
   * A line exactly as the client wrote it (its newline removed), for a proxy that reads its client's bytes
   * itself: the guard judges the bytes, as the CLI does, so what no `JSONRPCMessage` can carry (a line that
   * is not JSON, a batch, a member given twice, a stray member) is answered as the CLI answers it. A
   * forwarded line goes to a `LineTransport` as these bytes; to an SDK transport as `message` when given
   * (the client-facing transport's parse of it), else as the line's own parse (a number id no double holds
   * exactly, beyond 2^53, then reaches the upstream as another number: its answer is dropped as an answer
   * to nothing, and the request answered when it times out).
   */
  async sendLine(line: string | Uint8Array, message?: JSONRPCMessage): Promise<void> {
    if (typeof line !== "string" && !(line instanceof Uint8Array)) throw new ArgumentTypeError("line must be a string or a Uint8Array");
    await this.#fromClient(line, message === undefined ? { line } : { line, message });
  }

  /** A client line longer than `maxBytes`, discarded unread (its length, and its ends when they were kept):
   *  answered with the oversize error, under the request's own id when its ends show it. */
  async sendOversize(length: number, ends?: LineEnds): Promise<void> {
    const outcome = this.#decide((s) => s.clientOversize(length, ends));
    if (outcome !== undefined) await this.#carryOut(outcome, NOTHING_ARRIVED);
  }

  /** `line`: what the session judges (the arrival's own line, or the bytes of the message's JSON text). */
  async #fromClient(line: string | Uint8Array, arrival: Arrival): Promise<void> {
    const length = tooLongForTheGuard(line);
    const outcome = this.#decide((s) => (length === null ? s.clientLine(line) : s.clientOversize(length, endsOf(line))));
    if (outcome !== undefined) await this.#carryOut(outcome, arrival);
  }

  /**
   * Bytes of the upstream's stderr as read, in any pieces, for the operator's log: the redacted text of the
   * lines they complete (secrets redacted, traces and paths kept; an unfinished line is held until its end,
   * or `upstreamStderrEnd`). Successive calls are one stream, also for 5 s after the transport closed (a
   * process's last words).
   */
  upstreamStderr(data: string | Uint8Array): string {
    return this.#logged((s) => s.upstreamStderr(data), true);
  }

  /** The upstream's stderr has ended: the redacted text of the unfinished line held, if any. */
  upstreamStderrEnd(): string {
    return this.#logged((s) => s.upstreamStderrEnd(), false);
  }

  /** Other text about the upstream for the operator's log, whole lines: redacted as its stderr. */
  upstreamLog(text: string): string {
    return this.#logged((s) => s.upstreamLog(text), false);
  }

  #logged(call: (s: GuardSession) => string, holdsLines: boolean): string {
    if (!this.#sessionFreed && !this.#broken) return call(this.#session);
    // Words later still (the session is freed LATE_LOG_MS after the transport closed): a session of their own.
    return redactedAlone(call, holdsLines);
  }

  /**
   * Replaces the policy file (TOML) for the requests from now on: a reload, as SIGHUP is to
   * `jsonrpc-errors guard --config`. Requests in flight keep the policy they arrived under. A document the
   * guard module refuses throws `InvalidInputError` (`.error.data`: `line`, `column`, `details`) and leaves
   * the policy as it was. `env`: where its `hash_key_env` is read (default: `process.env` in Node).
   */
  setPolicy(policy: string, env?: Record<string, string | undefined>): void {
    if (!this.#sessionFreed && !this.#broken) this.#session.setPolicy(policy, env);
    else checkPolicy(policy, env);
    // What a session made after this one is freed starts from (it answers for an upstream that is gone).
    this.#sessionOptions.policy = policy;
    if (env !== undefined) this.#sessionOptions.policyEnv = env;
    else delete this.#sessionOptions.policyEnv;
  }

  /** Closes the inner transport; requests still pending are answered through `onmessage`, then `onclose`.
   *  Messages the upstream sends while it shuts down are still relayed. */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closing ??= (async () => {
      try {
        await this.inner.close();
      } finally {
        // Most transports call onclose from close(); for one that did not (or not yet), the end is ours.
        this.#innerClosed();
      }
    })();
    return this.#closing;
  }

  /** Runs a session call; a trap of the guard module ends the transport (no policy, no relaying). */
  #decide(call: (session: GuardSession) => GuardOutcome): GuardOutcome | undefined {
    if (this.#broken) return undefined;
    try {
      if (!this.#sessionFreed) return call(this.#session);
      // The transport closed a while ago and its session is freed: a session of its own, told what this one
      // was told, answers what the client side still sends.
      const late = new GuardSession(this.#sessionOptions);
      try {
        late.upstreamFailed(this.#failure ?? "closed-output");
        return call(late);
      } finally {
        late.close();
      }
    } catch (error) {
      if (!(error instanceof WasmFaultError)) throw error;
      this.#broken = true;
      this.onerror?.(error);
      void this.close().catch((e: unknown) => this.onerror?.(asError(e)));
      return undefined;
    }
  }

  #fromUpstream(line: string | Uint8Array, arrival: Arrival): void {
    if (this.#closed) return;
    let outcome: GuardOutcome | undefined;
    try {
      const length = tooLongForTheGuard(line);
      outcome = this.#decide((s) => (length === null ? s.upstreamLine(line) : s.upstreamOversize(length, endsOf(line))));
    } catch (error) {
      this.onerror?.(asError(error));
      return;
    }
    if (outcome !== undefined) void this.#carryOut(outcome, arrival);
  }

  #fromUpstreamOversize(length: number, ends?: LineEnds): void {
    if (this.#closed) return;
    const outcome = this.#decide((s) => s.upstreamOversize(length, ends));
    if (outcome !== undefined) void this.#carryOut(outcome, NOTHING_ARRIVED);
  }

  /**
   * The steps, in order: events to `onEvent`, lines to the client side through `onrawline` or `onmessage`
   * (delivered synchronously, as `InMemoryTransport` does, so order is kept), lines to the upstream through
   * `inner`. Resolves when the upstream writes are done; a write that fails is the upstream's failure, not
   * the caller's (see #writeFailed): the promise never rejects.
   */
  #carryOut(outcome: GuardOutcome, arrival: Arrival): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const step of outcome.steps) {
      if (step.step === "event") {
        try {
          this.#onEvent?.(step);
        } catch (error) {
          // A failing log callback must not cost anyone the steps after it (an answer, a cancellation).
          this.onerror?.(asError(error));
        }
      } else if (step.step === "end") {
        // A request answered with many responses is settled: an SDK transport frames no response per request,
        // so there is nothing to end (the session's messages already said everything).
        continue;
      } else if (step.to === "client") {
        this.#toClient(step, arrival);
      } else {
        writes.push(this.#toUpstream(step, arrival));
      }
    }
    this.#pending = outcome.pending;
    this.#arm(outcome.deadline);
    return writes.length === 0 ? Promise.resolve() : Promise.all(writes).then(() => undefined);
  }

  #toClient(step: ForwardStep | SendStep, arrival: Arrival): void {
    try {
      if (this.onrawline !== undefined) {
        this.onrawline(step.step === "send" ? step.line : (arrival.line ?? JSON.stringify(parsed(arrival))));
      } else if (step.step === "send") {
        this.onmessage?.(JSON.parse(step.line) as JSONRPCMessage);
      } else {
        this.onmessage?.(parsed(arrival), arrival.extra);
      }
    } catch (error) {
      // The client side's own failure: it must neither cost the steps after it nor reach the inner transport
      // (which would report it as its own error).
      this.onerror?.(asError(error));
    }
  }

  #toUpstream(step: ForwardStep | SendStep, arrival: Arrival): Promise<void> {
    let write: Promise<void>;
    try {
      if (this.#lines !== undefined) {
        const line = step.step === "send" ? step.line : arrival.line;
        if (line === undefined) throw new JsonRpcErrorsError("the guard asked to forward a line it was not given");
        write = this.#lines.sendLine(line);
      } else {
        const inner = this.inner as Transport;
        write = step.step === "send" ? inner.send(JSON.parse(step.line) as JSONRPCMessage) : inner.send(parsed(arrival), arrival.options);
      }
    } catch (error) {
      write = Promise.reject(error);
    }
    return write.catch((error: unknown) => this.#writeFailed(asError(error)));
  }

  /** A write to the upstream failed. An SDK transport's failed write (a request that cannot reach the server)
   *  means its connection is gone; a LineTransport reports its own end. */
  #writeFailed(error: Error): void {
    if (!this.#reported.has(error)) this.onerror?.(error);
    if (this.#lines === undefined) this.#connectionLost(error);
  }

  #innerError(error: Error): void {
    if (typeof error === "object" && error !== null) this.#reported.add(error);
    this.onerror?.(error);
    if (error instanceof Error && lostConnection(error)) this.#connectionLost(error);
  }

  /**
   * An SDK transport lost its connection: it may never close by itself (Streamable HTTP does not), so once
   * it had CONNECTION_SETTLE_MS to deliver what it still has, the guard answers for the upstream and closes it.
   */
  #connectionLost(error: Error): void {
    if (this.#closed || this.#failure !== undefined || this.#lostTimer !== undefined) return;
    this.#lostTimer = setTimeout(() => {
      this.#lostTimer = undefined;
      if (this.#closed) return;
      this.#upstreamEnded(this.#upstreamFailure(error));
      void this.close().catch((e: unknown) => this.onerror?.(asError(e)));
    }, CONNECTION_SETTLE_MS);
  }

  /** Keeps one timer on the session's deadline (a timer firing a little early is the session's to allow for:
   *  `expire` in wit/world.wit). */
  #arm(deadline: number | null): void {
    if (this.#closed) deadline = null;
    if (deadline === this.#timerDeadline && (deadline === null || this.#timer !== undefined)) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDeadline = deadline;
    if (deadline === null) return;
    const wait = Math.min(Math.max(deadline - Date.now(), 0), LONGEST_TIMER_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerDeadline = null;
      if (this.#closed) return;
      const outcome = this.#decide((s) => s.expire());
      if (outcome !== undefined) void this.#carryOut(outcome, NOTHING_ARRIVED);
    }, wait);
  }

  /** The upstream can no longer answer: the guard answers every pending request (and every later one). */
  #upstreamEnded(failure: UpstreamFailure): void {
    if (this.#failure !== undefined) return;
    this.#failure = failure;
    const outcome = this.#decide((s) => s.upstreamFailed(failure));
    if (outcome !== undefined) void this.#carryOut(outcome, NOTHING_ARRIVED);
  }

  #innerClosed(failure?: UpstreamFailure): void {
    if (this.#closed) return;
    clearTimeout(this.#lostTimer);
    this.#lostTimer = undefined;
    this.#upstreamEnded(failure ?? this.#upstreamFailure());
    this.#closed = true;
    this.#arm(null);
    // The upstream's last stderr can arrive after its transport closed, and go on with a key block an earlier
    // chunk left open: the session, which knows, redacts it for a while longer, then is freed.
    const free = setTimeout(() => {
      this.#sessionFreed = true;
      this.#session.close();
    }, LATE_LOG_MS);
    (free as { unref?: () => void }).unref?.(); // Node: the delay keeps no process alive
    this.onclose?.();
  }
}

/** Wraps `inner` (the transport to the upstream server) in the guard; see {@link GuardedTransport}. */
export function guardTransport(inner: Transport | LineTransport, options: GuardTransportOptions = {}): GuardedTransport {
  return new GuardedTransport(inner, options);
}
