// `jsonrpc-errors/mcp`: the guard (a `GuardSession`, wit/world.wit interface `guard`) fitted to the official
// MCP TypeScript SDK, so a proxy, a gateway or a client on the SDK gets exactly what `jsonrpc-errors guard`
// does, decided by the same WebAssembly policy. Nothing here decides anything about a message: every line
// goes to the session, and the steps it returns are carried out in order.
//
// The SDK is imported for its types only (it is an optional peer dependency); the one runtime use, McpError
// for tool errors outside the `mcp` dialect, is a dynamic import made when such an error happens.

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { ArgumentTypeError, JsonRpcErrorsError, WasmFaultError } from "./errors.js";
import { GuardSession, type EventStep, type GuardOptions, type GuardOutcome, type UpstreamFailure } from "./guard.js";
import type { Dialect } from "./taxonomy.js";

/** The `jsonrpc-errors guard` CLI's default `--timeout` (50 s, below the 60 s most MCP clients wait). */
export const DEFAULT_TIMEOUT_MS = 50_000;

export interface GuardTransportOptions {
  /** Default "canonical", as the CLI. */
  dialect?: Dialect;
  /** How long a request may wait for the upstream (progress restarts the wait). Default 50,000 ms, as the
   *  CLI; 0 or null: no limit. */
  timeoutMs?: number | null;
  /** Largest message from the client side in bytes (default 10 MiB). */
  maxBytes?: number | null;
  batch?: "reject" | "allow";
  /** How errors and logs name the upstream, e.g. `stdio:server` (credentials in a URL are never shown). */
  upstream?: string;
  /** Every event the guard reports (answered, sanitized, redacted, dropped, ...): for the operator's log
   *  and metrics. Events carry no message body; `detail` is redacted (it keeps stack traces and paths). */
  onEvent?: (event: EventStep) => void;
  /** What the guard is told when the inner transport closes (default "closed-output": the SDK's transports
   *  do not say whether a process exited, or with which status). Only the operator's log shows it. */
  upstreamFailure?: () => UpstreamFailure;
}

/** Where a line the session was given came from, for a `forward` step: the message as it arrived. */
interface Arrival {
  message(): JSONRPCMessage;
  options?: TransportSendOptions | undefined;
  extra?: MessageExtraInfo | undefined;
}

const NOTHING_ARRIVED: Arrival = {
  message() {
    throw new JsonRpcErrorsError("the guard asked to forward a line it was not given");
  },
};

/** How long the session outlives its transport for the upstream's last stderr (`upstreamStderr`). */
const LATE_LOG_MS = 5_000;

/** setTimeout's longest delay; a later deadline is waited for in steps (the session re-reports it). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

const decoder = new TextDecoder();

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

/**
 * An SDK `Transport` to an upstream server with the guard in front of it: hand it to `Client.connect`, or
 * pump a proxy's client-facing transport into it. `inner` is the transport to the upstream (a
 * `StdioClientTransport`, a `StreamableHTTPClientTransport`, one end of an `InMemoryTransport` pair, ...).
 *
 * - `send` (the client side's messages) checks each message with the guard (`clientLine` of its JSON text):
 *   a forwarded message is passed to `inner.send` as the same object, with the same send options; a message
 *   the guard answers (an id already in flight, the upstream gone, ...) is answered through `onmessage`.
 * - The upstream's messages go through the guard too: relayed to `onmessage` as they came (with their extra
 *   info), or rewritten (sanitized errors, redacted `isError` results), or dropped.
 * - A request that waits longer than `timeoutMs` is answered with the timeout error and cancelled upstream.
 * - When `inner` closes (or cannot start), every pending request is answered through `onmessage` before
 *   `onclose` is called: the client never waits for an answer that cannot come.
 */
export class GuardedTransport implements Transport {
  readonly inner: Transport;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;

  readonly #session: GuardSession;
  #sessionFreed = false;
  readonly #onEvent: ((event: EventStep) => void) | undefined;
  readonly #upstreamFailure: () => UpstreamFailure;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDeadline: number | null = null;
  #pending = 0;
  #upstreamGone = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** The session's module trapped: nothing more can be decided, so nothing more is relayed. */
  #broken = false;

  constructor(inner: Transport, options: GuardTransportOptions = {}) {
    if (typeof inner !== "object" || inner === null || typeof inner.send !== "function") {
      throw new ArgumentTypeError("inner must be an MCP SDK Transport");
    }
    if (typeof options !== "object" || options === null) throw new ArgumentTypeError("options must be an object");
    const { onEvent, upstreamFailure } = options;
    if (onEvent !== undefined && typeof onEvent !== "function") throw new ArgumentTypeError("onEvent must be a function");
    if (upstreamFailure !== undefined && typeof upstreamFailure !== "function") {
      throw new ArgumentTypeError("upstreamFailure must be a function");
    }
    const timeoutMs = options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : options.timeoutMs === 0 ? null : options.timeoutMs;
    const sessionOptions: GuardOptions = { dialect: options.dialect ?? "canonical", timeoutMs, maxBytes: options.maxBytes ?? null };
    if (options.batch !== undefined) sessionOptions.batch = options.batch;
    if (options.upstream !== undefined) sessionOptions.upstream = options.upstream;
    this.#session = new GuardSession(sessionOptions);
    this.#onEvent = onEvent;
    this.#upstreamFailure = upstreamFailure ?? (() => "closed-output");
    this.inner = inner;
    if (typeof inner.setProtocolVersion === "function") {
      this.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
    }
    inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => this.#fromUpstream(message, extra);
    inner.onerror = (error: Error) => this.onerror?.(error);
    inner.onclose = () => this.#innerClosed();
  }

  /** The inner transport's session id (Streamable HTTP has one). */
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Client requests waiting for the upstream. */
  get pending(): number {
    return this.#pending;
  }

  /** Whether the transport has closed (after which `send` throws, as the SDK's transports do). */
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

  /** A message from the client side, on its way to the upstream. */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.#assertOpen();
    const outcome = this.#decide((s) => s.clientLine(JSON.stringify(message)));
    if (outcome !== undefined) await this.#carryOut(outcome, { message: () => message, options });
  }

  /**
   * A line exactly as the client wrote it (its newline removed), for a proxy that reads its client's bytes
   * itself: the guard judges the bytes, as the CLI does, so what no `JSONRPCMessage` can carry (a line that
   * is not JSON, a batch, a member given twice, a stray member) is answered as the CLI answers it. A
   * forwarded line is sent on as `message` when given (the client-facing transport's parse of it), else
   * as the line's own parse.
   */
  async sendLine(line: string | Uint8Array, message?: JSONRPCMessage): Promise<void> {
    this.#assertOpen();
    if (typeof line !== "string" && !(line instanceof Uint8Array)) throw new ArgumentTypeError("line must be a string or a Uint8Array");
    const outcome = this.#decide((s) => s.clientLine(line));
    const parsed = () => message ?? (JSON.parse(typeof line === "string" ? line : decoder.decode(line)) as JSONRPCMessage);
    if (outcome !== undefined) await this.#carryOut(outcome, { message: parsed });
  }

  /** A client line longer than `maxBytes`, discarded unread (its length): answered with the oversize error. */
  async sendOversize(length: number): Promise<void> {
    this.#assertOpen();
    const outcome = this.#decide((s) => s.clientOversize(length));
    if (outcome !== undefined) await this.#carryOut(outcome, NOTHING_ARRIVED);
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
    // Words later still (the session is freed LATE_LOG_MS after the transport closed): a session of their
    // own, which ends its stream at once (nothing would come to finish a line it held).
    const late = new GuardSession({ timeoutMs: null });
    try {
      const text = call(late);
      return holdsLines ? text + late.upstreamStderrEnd() : text;
    } finally {
      late.close();
    }
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

  #assertOpen(): void {
    if (this.#closed) throw new Error("Not connected");
  }

  /** Runs a session call; a trap of the guard module ends the transport (no policy, no relaying). */
  #decide(call: (session: GuardSession) => GuardOutcome): GuardOutcome | undefined {
    if (this.#broken) return undefined;
    try {
      return call(this.#session);
    } catch (error) {
      if (!(error instanceof WasmFaultError)) throw error;
      this.#broken = true;
      this.onerror?.(error);
      void this.close().catch((e: unknown) => this.onerror?.(asError(e)));
      return undefined;
    }
  }

  #fromUpstream(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if (this.#closed) return;
    let outcome: GuardOutcome | undefined;
    try {
      outcome = this.#decide((s) => s.upstreamLine(JSON.stringify(message)));
    } catch (error) {
      this.onerror?.(asError(error));
      return;
    }
    if (outcome !== undefined) this.#carryOut(outcome, { message: () => message, extra }).catch((e: unknown) => this.onerror?.(asError(e)));
  }

  /**
   * The steps, in order: events to `onEvent`, lines to the client side through `onmessage` (delivered
   * synchronously, as `InMemoryTransport` does, so order is kept), lines to the upstream through
   * `inner.send`. Resolves when the upstream writes are done; rejects with the first that failed.
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
        continue;
      }
      const forwarded = step.step === "forward";
      const message = forwarded ? arrival.message() : (JSON.parse(step.line) as JSONRPCMessage);
      if (step.to === "client") {
        this.onmessage?.(message, forwarded ? arrival.extra : undefined);
      } else {
        writes.push(this.inner.send(message, forwarded ? arrival.options : undefined));
      }
    }
    this.#pending = outcome.pending;
    this.#arm(outcome.deadline);
    return writes.length === 0 ? Promise.resolve() : Promise.all(writes).then(() => undefined);
  }

  /** Keeps one timer on the session's deadline (one millisecond late: the session compares it with the clock). */
  #arm(deadline: number | null): void {
    if (this.#closed) deadline = null;
    if (deadline === this.#timerDeadline && (deadline === null || this.#timer !== undefined)) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDeadline = deadline;
    if (deadline === null) return;
    const wait = Math.min(Math.max(deadline - Date.now(), 0) + 1, LONGEST_TIMER_MS);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerDeadline = null;
      if (this.#closed) return;
      const outcome = this.#decide((s) => s.expire());
      if (outcome !== undefined) this.#carryOut(outcome, NOTHING_ARRIVED).catch((e: unknown) => this.onerror?.(asError(e)));
    }, wait);
  }

  /** The upstream can no longer answer: the guard answers every pending request (and every later one). */
  #upstreamEnded(failure: UpstreamFailure): void {
    if (this.#upstreamGone) return;
    this.#upstreamGone = true;
    const outcome = this.#decide((s) => s.upstreamFailed(failure));
    if (outcome !== undefined) this.#carryOut(outcome, NOTHING_ARRIVED).catch((e: unknown) => this.onerror?.(asError(e)));
  }

  #innerClosed(): void {
    if (this.#closed) return;
    this.#upstreamEnded(this.#upstreamFailure());
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
export function guardTransport(inner: Transport, options: GuardTransportOptions = {}): GuardedTransport {
  return new GuardedTransport(inner, options);
}

// ------------------------------------------------------------------------------------------- tool helpers

export interface GuardToolOptions {
  /** The tool's name (what a client's `tools/call` names). */
  name: string;
  /** The dialect of the answer (default "mcp"). */
  dialect?: Dialect;
  /** Gets what the tool threw, for the operator's log: the client never sees it. */
  onError?: (error: unknown, tool: string) => void;
}

/** The guard's answer to the synthetic `tools/call`: a result (a tool result) or an error object. */
export interface ToolAnswer {
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
}

/** ErrorCode.UrlElicitationRequired: how a tool asks the client for a URL-mode elicitation. A protocol step,
 *  not a failure: McpServer hands it on as an error, and so does the wrapper (as the Python package does). */
const URL_ELICITATION_REQUIRED = -32042;

function isProtocolStep(thrown: unknown): boolean {
  return thrown instanceof Error && (thrown as { code?: unknown }).code === URL_ELICITATION_REQUIRED;
}

/** Handlers made by guardTool and servers given to guardTools: wrapping twice would canonicalize the
 *  canonical error again ("McpError: Error: ..."). */
const guardedHandlers = new WeakSet<object>();
const guardedServers = new WeakSet<object>();

function isToolErrorResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && (value as { isError?: unknown }).isError === true;
}

/** The line a session in `dialect` sends the client when the upstream answers a `tools/call` of `tool` with `reply`. */
function guardAnswer(tool: string, dialect: Dialect, reply: Record<string, unknown>): ToolAnswer | undefined {
  const session = new GuardSession({ dialect, timeoutMs: null });
  try {
    session.clientLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool } }));
    const outcome = session.upstreamLine(JSON.stringify({ jsonrpc: "2.0", id: 1, ...reply }));
    const sent = outcome.steps.find((s) => s.step === "send" && s.to === "client");
    return sent?.step === "send" ? (JSON.parse(sent.line) as ToolAnswer) : undefined;
  } finally {
    session.close();
  }
}

/**
 * The canonical tool error for a thrown value: exactly what the guard answers when a server replies to a
 * `tools/call` of `tool` with the JSON-RPC error `{"code": -32603, "message": "<name>: <message>",
 * "data": {"stack": <stack>}}` (the Python package builds the same from an exception's class name, text and
 * traceback, so both agree). Returns the tool result, or the error object, the session sent the client.
 */
export function canonicalToolError(tool: string, thrown: unknown, dialect: Dialect = "mcp"): ToolAnswer {
  const error = asError(thrown);
  const reply = { error: { code: -32603, message: `${error.name}: ${error.message}`, data: { stack: String(error.stack ?? "") } } };
  const answer = guardAnswer(tool, dialect, reply);
  // The session answers every upstream error to a pending request; without an answer, say nothing of it.
  return answer ?? { error: { code: -32603, message: "Internal error" } };
}

type McpErrorClass = typeof import("@modelcontextprotocol/sdk/types.js").McpError;
let mcpErrorClass: Promise<McpErrorClass> | undefined;

/** McpError, loaded when first needed: the package does not depend on the SDK at import time. */
function loadMcpError(): Promise<McpErrorClass> {
  mcpErrorClass ??= import("@modelcontextprotocol/sdk/types.js").then((sdk) => sdk.McpError);
  return mcpErrorClass;
}

/**
 * Wraps a tool handler (an `McpServer.registerTool` callback, or a `tools/call` request handler) so that
 * whatever it throws becomes the canonical tool error and nothing of it reaches the client: the thrown
 * value goes to `onError`, and the handler returns {@link canonicalToolError}'s tool result, or, when the
 * guard answers with an error object, throws it as an `McpError` carrying exactly that code, message and
 * data (a request handler's thrown error is what the SDK puts on the wire; `McpServer` turns it into an
 * `isError` result with that message). A result the tool itself marks `isError` is redacted and cut as
 * the guard does an upstream's; any other result is returned untouched. An `McpError` asking for a URL
 * elicitation (-32042) is a protocol step, not a failure: it passes through. A handler already guarded is
 * returned as it is.
 */
export function guardTool<Args extends unknown[], R>(
  handler: (...args: Args) => R | Promise<R>,
  options: GuardToolOptions,
): (...args: Args) => Promise<R | CallToolResult> {
  if (typeof handler !== "function") throw new ArgumentTypeError("handler must be a function");
  if (typeof options !== "object" || options === null || typeof options.name !== "string") {
    throw new ArgumentTypeError("options.name (the tool's name) must be a string");
  }
  const { name, onError } = options;
  const dialect = options.dialect ?? "mcp";
  // Refuse an unknown dialect now, not at the first failure.
  new GuardSession({ dialect }).close();
  if (guardedHandlers.has(handler)) return handler as (...args: Args) => Promise<R | CallToolResult>;
  const guarded = async (...args: Args): Promise<R | CallToolResult> => {
    let result: R;
    try {
      result = await handler(...args);
    } catch (thrown) {
      if (isProtocolStep(thrown)) throw thrown;
      try {
        onError?.(thrown, name);
      } catch {
        // The operator's callback failing must not turn into the answer (its text could leak too).
      }
      const answer = canonicalToolError(name, thrown, dialect);
      if (answer.result !== undefined) return answer.result;
      const error = answer.error ?? { code: -32603, message: "Internal error" };
      const McpError = await loadMcpError();
      const refusal = new McpError(error.code, error.message, error.data);
      // McpError prefixes "MCP error <code>: "; the wire carries the guard's message alone (clients add the prefix).
      refusal.message = error.message;
      throw refusal;
    }
    if (!isToolErrorResult(result)) return result;
    const answer = guardAnswer(name, dialect, { result });
    return answer?.result ?? result;
  };
  guardedHandlers.add(guarded);
  return guarded;
}

/** What `McpServer.registerTool` takes and returns, as far as wrapping its callback goes. */
type RegisterTool = McpServer["registerTool"];

/**
 * Guards every tool registered on `server` from now on (`registerTool`, and the deprecated `tool`): each
 * callback is wrapped by {@link guardTool} with the tool's name. Call it before registering the tools (once:
 * a second call changes nothing). Returns the server.
 */
export function guardTools<S extends { registerTool: RegisterTool }>(server: S, options: Omit<GuardToolOptions, "name"> = {}): S {
  if (typeof server !== "object" || server === null || typeof server.registerTool !== "function") {
    throw new ArgumentTypeError("server must be an McpServer");
  }
  if (guardedServers.has(server)) return server;
  guardedServers.add(server);
  const wrap = (name: unknown, callback: unknown): unknown =>
    typeof name === "string" && typeof callback === "function"
      ? guardTool(callback as (...args: unknown[]) => unknown, { ...options, name })
      : callback;
  const registerTool = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  server.registerTool = ((name: unknown, config: unknown, callback: unknown) => registerTool(name, config, wrap(name, callback))) as RegisterTool;
  const legacy = server as unknown as { tool?: (...args: unknown[]) => unknown };
  if (typeof legacy.tool === "function") {
    const tool = legacy.tool.bind(server);
    // The deprecated form's callback is always its last argument.
    legacy.tool = (...args: unknown[]) => tool(...args.slice(0, -1), wrap(args[0], args[args.length - 1]));
  }
  return server;
}

export type { EventStep, UpstreamFailure } from "./guard.js";
export type { Dialect } from "./taxonomy.js";
