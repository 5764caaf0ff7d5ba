// Tool failures answered as the guard answers the SDK's own reply to them: `canonicalToolError`, and the
// wrappers `guardTool` (one handler) and `guardTools` (every tool an `McpServer` registers).
//
// The SDK is imported for its types only (it is an optional peer dependency); the one runtime use, McpError
// for tool errors the guard answers with an error object, is a dynamic import made when such an error happens.

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ArgumentTypeError } from "../errors.js";
import { GuardSession } from "../guard.js";
import type { Dialect } from "../taxonomy.js";
import { type ToolErrorLogger, report } from "./log.js";

export interface GuardToolOptions {
  /** The tool's name (what a client's `tools/call` names). Default: the handler's own name (`fn.name`), as
   *  Python's `guard_tool` defaults to the function's; required for an anonymous handler. */
  name?: string;
  /** The dialect of the answer (default "mcp"). */
  dialect?: Dialect;
  /** Gets what the tool threw, redacted for the operator's log (an Error with its name, message and stack:
   *  secrets gone, stack traces and paths kept), and the tool's name. The raw thrown value never leaves
   *  the wrapper; the client never sees either. */
  onError?: (error: Error, tool: string) => void;
  /** Where a failure is logged, redacted as for `onError`, one `error(text)` call each. Default `console`;
   *  null: not logged. */
  logger?: ToolErrorLogger | null;
}

/** The guard's answer to the synthetic `tools/call`: a result (a tool result) or an error object. */
export interface ToolAnswer {
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
}

/** ErrorCode.UrlElicitationRequired: the one McpError that McpServer does not turn into a tool result. */
const URL_ELICITATION_REQUIRED = -32042;

/** What a failure is described as when the thrown value cannot be read (a getter that throws, a Proxy):
 *  JSON-RPC's plain internal error, which says nothing of it. */
const UNREADABLE_FAILURE = JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } });
const INTERNAL_ERROR = { code: -32603, message: "Internal error" } as const;

/** Handlers made by guardTool and servers given to guardTools: wrapping twice would describe the guard's
 *  answer as a failure again. */
const guardedHandlers = new WeakSet<object>();
const guardedServers = new WeakSet<object>();

type McpErrorClass = typeof import("@modelcontextprotocol/sdk/types.js").McpError;
let mcpErrorClass: Promise<McpErrorClass | undefined> | undefined;
let loadedMcpError: McpErrorClass | undefined;

/** McpError, loaded when first needed: the package does not depend on the SDK at import time. */
function loadMcpError(): Promise<McpErrorClass | undefined> {
  mcpErrorClass ??= import("@modelcontextprotocol/sdk/types.js").then(
    (sdk) => (loadedMcpError = sdk.McpError),
    () => undefined,
  );
  return mcpErrorClass;
}

/** McpServer's `error instanceof McpError`, also for another copy of the SDK (its ESM and CommonJS builds,
 *  a bundle): McpError's constructor names its instances "McpError". */
function isMcpError(error: Error): boolean {
  return error.name === "McpError" || (loadedMcpError !== undefined && error instanceof loadedMcpError);
}

/**
 * The response McpServer (SDK 1.32, its tools/call handler) writes when a tool throws `thrown`, as JSON
 * text with id 1: an McpError asking for a URL elicitation (-32042) is thrown on, and the SDK answers with
 * its code, its message (McpError's own, "MCP error -32042: ...") and its data; anything else becomes the
 * tool result `{"content": [{"type": "text", "text": <error.message, or String(thrown)>}], "isError": true}`.
 * Undefined when `thrown` cannot be read: the caller fails closed.
 */
function mcpServerReply(thrown: unknown): string | undefined {
  try {
    if (thrown instanceof Error && isMcpError(thrown) && (thrown as { code?: unknown }).code === URL_ELICITATION_REQUIRED) {
      const { message, data } = thrown as Error & { data?: unknown };
      const error = { code: URL_ELICITATION_REQUIRED, message: String(message ?? "Internal error"), ...(data !== undefined && { data }) };
      return JSON.stringify({ jsonrpc: "2.0", id: 1, error });
    }
    // A text that is not a string is written as text: the guard redacts strings only.
    const text = String(thrown instanceof Error ? thrown.message : thrown);
    return JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }], isError: true } });
  } catch {
    return undefined;
  }
}

/** What a session in `dialect` sends the client when the upstream answers a `tools/call` of `tool` with
 *  `reply` (a response's JSON text, id 1). Throws what the session throws (a reply too long for it). */
function guardAnswer(tool: string, dialect: Dialect, reply: string): ToolAnswer | undefined {
  const session = new GuardSession({ dialect, timeoutMs: null });
  try {
    session.clientLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool } }));
    for (const step of session.upstreamLine(reply).steps) {
      if (step.step === "event" || step.step === "end" || step.to !== "client") continue;
      const { result, error } = JSON.parse(step.step === "send" ? step.line : reply) as ToolAnswer;
      return result !== undefined ? { result } : error !== undefined ? { error } : undefined;
    }
    return undefined;
  } finally {
    session.close();
  }
}

/** The session's answer to `reply`; to the unreadable failure's when there is none (the guard could not
 *  take the reply); the plain internal error when not even that. */
function answerFor(tool: string, dialect: Dialect, reply: string): ToolAnswer {
  for (const described of [reply, UNREADABLE_FAILURE]) {
    try {
      const answer = guardAnswer(tool, dialect, described);
      if (answer !== undefined) return answer;
    } catch (error) {
      if (described === UNREADABLE_FAILURE) throw error; // the module itself failed: not ours to hide
    }
  }
  return { error: { ...INTERNAL_ERROR } };
}

/**
 * The guard's answer for a tool `tool` that threw `thrown`: the failure is described as the response the
 * SDK's `McpServer` itself would have written for it (an `isError` result with the error's message as its
 * text; for an McpError asking for a URL elicitation, -32042, that error), and a guard session in `dialect`
 * given a `tools/call` of `tool` and that response decides what the client gets: the tool result, or the
 * error object, it returns (redacted and cut to 1 KB, codes kept or mapped as the guard does an upstream's).
 * A thrown value that cannot be read gets the answer to JSON-RPC's plain internal error. The Python package
 * describes its failures as the same responses, so both agree.
 */
export function canonicalToolError(tool: string, thrown: unknown, dialect: Dialect = "mcp"): ToolAnswer {
  return answerFor(tool, dialect, mcpServerReply(thrown) ?? UNREADABLE_FAILURE);
}

/** The guard's error object as a thrown error that the SDK writes exactly as it is (code, message, data). */
async function thrownAs(error: NonNullable<ToolAnswer["error"]>): Promise<Error> {
  const McpError = await loadMcpError();
  const refusal = McpError === undefined ? Object.assign(new Error(), { code: error.code, data: error.data }) : new McpError(error.code, error.message, error.data);
  // McpError prefixes "MCP error <code>: "; the wire carries the guard's message as it wrote it.
  refusal.message = error.message;
  return refusal;
}

function isToolErrorResult(value: unknown): value is CallToolResult {
  return typeof value === "object" && value !== null && (value as { isError?: unknown }).isError === true;
}

/**
 * Wraps a tool handler (an `McpServer.registerTool` callback, or a `tools/call` request handler) so that
 * whatever it throws becomes the guard's answer and nothing of it reaches the client: the thrown value is
 * logged redacted (to `logger`, `console` by default, and `onError`), and the handler returns
 * {@link canonicalToolError}'s tool result or, when the guard answers with an error object, throws it as an
 * `McpError` carrying exactly that code, message and data (which the SDK writes as it is; `McpServer` makes
 * any but -32042 a tool result with that message). The answer keeps the SDK's meaning: under `McpServer` a
 * guarded tool's failure looks like an unguarded one's, less what the guard redacts. A result the tool
 * itself marks `isError` is redacted and cut as the guard does an upstream's; any other result is returned
 * untouched. A handler already guarded is returned as it is.
 */
export function guardTool<Args extends unknown[], R>(
  handler: (...args: Args) => R | Promise<R>,
  options: GuardToolOptions = {},
): (...args: Args) => Promise<R | CallToolResult> {
  if (typeof handler !== "function") throw new ArgumentTypeError("handler must be a function");
  if (typeof options !== "object" || options === null) throw new ArgumentTypeError("options must be an object");
  const name = toolName(handler, options.name);
  const { onError } = options;
  if (onError !== undefined && typeof onError !== "function") throw new ArgumentTypeError("onError must be a function");
  const logger = options.logger === undefined ? console : options.logger;
  if (logger !== null && (typeof logger !== "object" || typeof logger.error !== "function")) {
    throw new ArgumentTypeError("logger must have an error method, or be null");
  }
  const dialect = options.dialect ?? "mcp";
  // Refuse an unknown dialect now, not at the first failure.
  new GuardSession({ dialect }).close();
  if (guardedHandlers.has(handler)) return handler as (...args: Args) => Promise<R | CallToolResult>;
  void loadMcpError(); // McpServer's McpError, for telling McpErrors apart from then on
  const answered = async (answer: ToolAnswer): Promise<CallToolResult> => {
    if (answer.result !== undefined) return answer.result;
    throw await thrownAs(answer.error ?? INTERNAL_ERROR);
  };
  const failed = (thrown: unknown): Promise<CallToolResult> => {
    report(name, thrown, onError, logger);
    return answered(canonicalToolError(name, thrown, dialect));
  };
  const guarded = async (...args: Args): Promise<R | CallToolResult> => {
    let result: R;
    try {
      result = await handler(...args);
    } catch (thrown) {
      return failed(thrown);
    }
    let reply: string;
    try {
      if (!isToolErrorResult(result)) return result;
      reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result });
    } catch (thrown) {
      // A result that cannot be read or written (a throwing getter, a BigInt) is a failure too.
      return failed(thrown);
    }
    return answered(answerFor(name, dialect, reply));
  };
  guardedHandlers.add(guarded);
  return guarded;
}

/** The tool's name: `given`, else the handler's own name (a named function's; an anonymous one has none,
 *  and a bound one's is not a tool's: "bound query"). */
function toolName(handler: (...args: never[]) => unknown, given: unknown): string {
  if (given !== undefined) {
    if (typeof given !== "string" || given === "") throw new ArgumentTypeError("options.name (the tool's name) must be a non-empty string");
    return given;
  }
  const own = handler.name;
  if (typeof own !== "string" || own === "" || own.startsWith("bound ")) {
    throw new ArgumentTypeError(
      "guardTool: give options.name (the tool's name, as registered): the handler is an anonymous or bound function, which has no name of its own",
    );
  }
  return own;
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
