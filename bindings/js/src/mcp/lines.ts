// The lines the guard judges: a `LineTransport` (a side that carries each message as its line on the wire),
// where a line the session was given came from, and its length and ends when it is too long to read.

import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcErrorsError } from "../errors.js";
import type { UpstreamFailure } from "../guard.js";
import { maxInputBytes } from "../runtime.js";

/** A discarded line's first and last bytes, as they passed (up to 4 KiB each). */
export interface LineEnds {
  head: Uint8Array;
  tail: Uint8Array;
}

/** The ends of a line held whole that is too long for the guard to read. */
export function endsOf(line: string | Uint8Array): LineEnds {
  const bytes = typeof line === "string" ? encoder.encode(line) : line;
  const edge = Math.min(4096, bytes.length);
  return { head: bytes.subarray(0, edge), tail: bytes.subarray(bytes.length - edge) };
}

/**
 * A transport that carries each message as the line it is on the wire (a child process's stdio, a socket):
 * the guard is handed the bytes as read and forwards exactly those bytes, so nothing is lost to a parse
 * (an id beyond 2^53, an id spelled `1E2` or `1.5`, a member no schema knows). `GuardedTransport` is one
 * itself (toward its user); examples/mcp-proxy-ts/stdio.ts has one for an upstream process.
 */
export interface LineTransport {
  start(): Promise<void>;
  /** Writes `line` (no newline in it) exactly as given. */
  sendLine(line: string | Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** A line as read, its newline removed. */
  onrawline?: ((line: Uint8Array) => void) | undefined;
  /** A line longer than the transport takes, discarded as it streamed: its length, and its first and last
   *  bytes when it kept them (the guard reads the line's id there, to answer it at once). */
  onoversize?: ((length: number, ends?: LineEnds) => void) | undefined;
  /** The transport has ended (it must say so: nothing else tells the guard), with how the upstream ended
   *  when it knows (a process's exit status). */
  onclose?: ((failure?: UpstreamFailure) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
}

/** Where a line the session was given came from, for a `forward` step. */
export interface Arrival {
  /** What the session was given: forwarded byte for byte where the far side takes lines. */
  line?: string | Uint8Array;
  /** The message as an SDK transport parsed it (else the line's own parse, when a side wants messages). */
  message?: JSONRPCMessage;
  options?: TransportSendOptions | undefined;
  extra?: MessageExtraInfo | undefined;
}

export const NOTHING_ARRIVED: Arrival = {};

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Whether `inner` is a {@link LineTransport} (it has `sendLine`) rather than an SDK transport. */
export function carriesLines(inner: Transport | LineTransport): inner is LineTransport {
  return typeof (inner as Partial<LineTransport>).sendLine === "function";
}

/** The line's length in bytes when it is longer than the guard module takes (64 MiB; it is then told the
 *  length, as of a line discarded unread), else null. */
export function tooLongForTheGuard(line: string | Uint8Array): number | null {
  const max = maxInputBytes();
  if (typeof line !== "string") return line.length > max ? line.length : null;
  if (line.length * 3 <= max) return null; // at most 3 bytes per UTF-16 unit: no need to encode
  const length = encoder.encode(line).length;
  return length > max ? length : null;
}

/**
 * The bytes of a line `JSON.stringify` wrote, for the session to judge. Such text holds no lone surrogate (a
 * well-formed `JSON.stringify`, ES2019, escapes one as `\udXXX`), so the check a string line gets before it is
 * encoded would find nothing: given the bytes, the session skips it. The same encoding it would do itself.
 */
export function stringifiedBytes(line: string): Uint8Array {
  return encoder.encode(line);
}

export function parsed(arrival: Arrival): JSONRPCMessage {
  if (arrival.message !== undefined) return arrival.message;
  const { line } = arrival;
  if (line === undefined) throw new JsonRpcErrorsError("the guard asked to forward a line it was not given");
  return JSON.parse(typeof line === "string" ? line : decoder.decode(line)) as JSONRPCMessage;
}
