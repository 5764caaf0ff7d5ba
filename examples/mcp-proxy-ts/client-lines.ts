// The lines a client writes to a stdio proxy, as bytes, each paired with what the SDK's
// `StdioServerTransport` made of it: the guard then judges the bytes the client wrote, as
// `jsonrpc-errors guard` does, and a line the SDK cannot parse (not JSON, a batch, a stray member) is
// answered by the guard instead of vanishing into the transport's `onerror`.
//
// Three listeners see the same stdin chunks, in this order: ours splits them into lines; the SDK's turns
// every complete line into exactly one `onmessage` or `onerror`, synchronously and in order, each taking
// the oldest line; the last drops whatever was not taken (nothing, unless the SDK changes), so the two
// never drift apart.

import type { Readable } from "node:stream";
import type { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A line as written (its newline removed), or the length of one over the limit (discarded as it streamed). */
export type ClientLine = Buffer | number;

export interface ClientLines {
  /** The last line, unterminated, once stdin has ended (the SDK never reads it). */
  rest(): ClientLine | undefined;
}

/** Starts `client` on `stdin`; `receive` gets every line with the SDK's parse of it (none when it failed). */
export async function startClient(
  client: StdioServerTransport,
  stdin: Readable,
  maxBytes: number,
  receive: (line: ClientLine, message?: JSONRPCMessage) => void,
  onInputError: (error: Error) => void,
): Promise<ClientLines> {
  const lines: ClientLine[] = [];
  let partial: Buffer[] = [];
  let partialBytes = 0;
  const take = (): ClientLine => (partialBytes <= maxBytes ? Buffer.concat(partial) : partialBytes);
  client.onmessage = (message) => {
    const line = lines.shift();
    if (line !== undefined) receive(line, message);
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
