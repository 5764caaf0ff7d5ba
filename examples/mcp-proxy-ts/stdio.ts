// The two stdio details of `jsonrpc-errors guard` that the SDK's stdio transports do not offer a proxy.
//
// 1. The lines a client writes, as bytes, each paired with what the SDK's `StdioServerTransport` made of it:
//    the guard then judges the bytes the client wrote, as the CLI does, and a line the SDK cannot parse (not
//    JSON, a batch, a stray member) is answered by the guard instead of vanishing into the transport's
//    `onerror`. Three listeners see the same stdin chunks, in this order: ours splits them into lines; the
//    SDK's turns every complete line into exactly one `onmessage` or `onerror`, synchronously and in order,
//    each taking the oldest line; the last drops whatever was not taken (nothing, unless the SDK changes),
//    so the two never drift apart.
// 2. The upstream's stderr, redacted in bursts (what arrives within 20 ms, so a trace written at once is
//    redacted whole), one log record per line.

import type { Readable, Stream } from "node:stream";
import type { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

/** A line as written (its newline removed), or the length of one over the limit (discarded as it streamed). */
export type ClientLine = Buffer | number;

export interface ClientLines {
  /** The last line, unterminated, once stdin has ended (the SDK never reads it). */
  rest(): ClientLine | undefined;
}

/** Starts `client` on `stdin`; `receive` gets every line as written, in order. */
export async function startClient(
  client: StdioServerTransport,
  stdin: Readable,
  maxBytes: number,
  receive: (line: ClientLine) => void,
  onInputError: (error: Error) => void,
): Promise<ClientLines> {
  const lines: ClientLine[] = [];
  let partial: Buffer[] = [];
  let partialBytes = 0;
  const take = (): ClientLine => (partialBytes <= maxBytes ? Buffer.concat(partial) : partialBytes);
  client.onmessage = () => {
    const line = lines.shift();
    if (line !== undefined) receive(line);
  };
  client.onerror = (error) => {
    const line = lines.shift();
    if (line !== undefined) receive(line);
    else onInputError(error);
  };
  stdin.on("data", (chunk: Buffer) => {
    for (let start = 0; ; ) {
      const end = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      partialBytes += piece.length;
      if (partialBytes <= maxBytes) partial.push(piece);
      if (end < 0) return;
      lines.push(take());
      [partial, partialBytes, start] = [[], 0, end + 1];
    }
  });
  const started = client.start();
  stdin.on("data", () => void lines.splice(0));
  await started;
  return {
    rest() {
      const line = partialBytes > 0 ? take() : undefined;
      [partial, partialBytes] = [[], 0];
      return line;
    },
  };
}

/** As the Rust guard: a burst is redacted in pieces of about 64 KB, and a stderr line longer than 1 MiB, its
 *  end not yet written, is relayed in pieces. */
const STDERR_CHUNK = 64 * 1024;
const STDERR_LINE_CAP = 1024 * 1024;

/**
 * Relays a child's `stderr` through `redact` to `log`, one call per line. What arrives within 20 ms is
 * redacted in one piece (a multi-line trace or key block stays whole), and only whole lines: a line cut in
 * two would be redacted as two, and a token across the cut would reach the log in halves. `redact` is one
 * stream (a session's `upstreamLog`), which carries a key block one piece leaves open into the next.
 */
export function relayStderr(stderr: Stream | null, redact: (text: string) => string, log: (line: string) => void) {
  let text = "";
  let timer: NodeJS.Timeout | undefined;
  const decoder = new TextDecoder();
  const flush = (all: boolean) => {
    clearTimeout(timer);
    timer = undefined;
    let cut = all ? text.length : text.lastIndexOf("\n") + 1;
    if (cut === 0 && text.length > STDERR_LINE_CAP) cut = text.lastIndexOf(" ") + 1 || text.length;
    if (cut === 0) return;
    const whole = text.slice(0, cut);
    text = text.slice(cut);
    for (const line of redact(whole).split("\n")) if (line !== "") log(line);
  };
  stderr?.on("data", (chunk: Buffer) => {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= STDERR_CHUNK) flush(false);
    if (text !== "") timer ??= setTimeout(() => flush(false), 20);
  });
  const ended = new Promise<void>((resolve) => (stderr ? stderr.on("end", resolve) : resolve()));
  return {
    /** Once the process is gone: waits for the pipe's end (at most `settleMs`: something the process left
     *  behind may hold it open), then relays what is left. */
    async drain(settleMs: number): Promise<void> {
      let late: NodeJS.Timeout | undefined;
      await Promise.race([ended, new Promise<void>((resolve) => (late = setTimeout(resolve, settleMs)))]);
      clearTimeout(late);
      text += decoder.decode();
      flush(true);
    },
  };
}
