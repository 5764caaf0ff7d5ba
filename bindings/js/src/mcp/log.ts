// The operator's log: texts redacted by the guard module as the guard's own log is (secrets gone, stack traces
// and paths kept), each in a session of its own; and a tool's failure reported to the operator.

import { GuardSession } from "../guard.js";

/**
 * `call`'s text from a session of its own, which ends its stream at once (nothing would come to finish a line
 * it held: with `holdsLines`, the unfinished line is added). A session's log is one stream, which would carry
 * a key block one text leaves open into the next: separate texts get separate sessions.
 */
export function redactedAlone(call: (session: GuardSession) => string, holdsLines: boolean): string {
  const session = new GuardSession({ timeoutMs: null });
  try {
    const text = call(session);
    return holdsLines ? text + session.upstreamStderrEnd() : text;
  } finally {
    session.close();
  }
}

/** Operator-log text, redacted as the guard's log is: secrets gone, stack traces and paths kept. */
function redactedForLog(text: string): string {
  return redactedAlone((session) => session.upstreamLog(text), false);
}

/** Where a tool's failure is logged: `console`, or any logger with an `error` method (pino, winston, ...). */
export interface ToolErrorLogger {
  error(message: string): void;
}

/** What the tool threw, for the operator: an Error with its name, message and stack redacted, nothing
 *  else of it (its other members can carry anything). Unreadable, or unredactable: a generic Error. */
function forOperator(thrown: unknown): Error {
  try {
    let name = "Error";
    let message: string;
    let stack: string | undefined;
    if (thrown instanceof Error) {
      name = String(thrown.name);
      message = String(thrown.message);
      stack = typeof thrown.stack === "string" ? thrown.stack : undefined;
    } else {
      message = String(thrown);
    }
    const redacted = new Error(redactedForLog(message));
    // Not enumerable, as an Error's own name and stack are.
    Object.defineProperty(redacted, "name", { value: redactedForLog(name), writable: true, configurable: true });
    redacted.stack = redactedForLog(stack ?? `${name}: ${message}`);
    return redacted;
  } catch {
    return new Error("the tool threw a value that cannot be read");
  }
}

/** Reports a failure to the operator (the logger, then onError); neither may fail the answer. */
export function report(tool: string, thrown: unknown, onError: ((error: Error, tool: string) => void) | undefined, logger: ToolErrorLogger | null): void {
  if (onError === undefined && logger === null) return;
  const failure = forOperator(thrown);
  try {
    logger?.error(`jsonrpc-errors/mcp: tool ${JSON.stringify(tool)} failed; the client gets the guard's answer. ${failure.stack ?? failure.message}`);
  } catch {
    // The operator's logger failing must not turn into the answer.
  }
  try {
    onError?.(failure, tool);
  } catch {
    // Nor the callback (its text could leak too).
  }
}
