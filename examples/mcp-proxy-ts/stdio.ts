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

/** As the Rust guard: what arrives within 20 ms, up to 64 KB, goes to the session in one piece. */
const STDERR_CHUNK = 64 * 1024;

/** A session's stderr stream (`GuardedTransport.upstreamStderr`/`upstreamStderrEnd`): it cuts the bytes at
 *  line ends, holding an unfinished line until its end, and returns the redacted lines. */
export interface StderrRedactor {
  upstreamStderr(bytes: Uint8Array): string;
  upstreamStderrEnd(): string;
}

/**
 * Relays a child's `stderr` through `redactor` to `log`, one call per line. What arrives within 20 ms is
 * handed on in one piece (a multi-line trace or key block stays whole); where the text may be cut is the
 * session's business, the same in every runtime.
 */
export function relayStderr(stderr: Stream | null, redactor: StderrRedactor, log: (line: string) => void) {
  let burst: Buffer[] = [];
  let burstBytes = 0;
  let timer: NodeJS.Timeout | undefined;
  const emit = (clean: string) => {
    for (const line of clean.split("\n")) if (line !== "") log(line);
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (burstBytes === 0) return;
    const bytes = Buffer.concat(burst, burstBytes);
    [burst, burstBytes] = [[], 0];
    emit(redactor.upstreamStderr(bytes));
  };
  stderr?.on("data", (chunk: Buffer) => {
    burst.push(chunk);
    burstBytes += chunk.length;
    if (burstBytes >= STDERR_CHUNK) flush();
    else timer ??= setTimeout(flush, 20);
  });
  const ended = new Promise<void>((resolve) => (stderr ? stderr.on("end", resolve) : resolve()));
  return {
    /** Once the process is gone: waits for the pipe's end (at most `settleMs`: something the process left
     *  behind may hold it open), then relays what is left. */
    async drain(settleMs: number): Promise<void> {
      let late: NodeJS.Timeout | undefined;
      await Promise.race([ended, new Promise<void>((resolve) => (late = setTimeout(resolve, settleMs)))]);
      clearTimeout(late);
      flush();
      emit(redactor.upstreamStderrEnd());
    },
  };
}
