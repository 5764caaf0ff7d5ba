// An MCP stdio proxy on the official TypeScript SDK with the guard in the middle: it decides exactly what
// `jsonrpc-errors guard` decides (the policy is the same WebAssembly, reached through `jsonrpc-errors/mcp`).
// The client talks to an SDK `StdioServerTransport` (this process's stdin/stdout); the upstream is an SDK
// `StdioClientTransport`, wrapped by `guardTransport`; messages are relayed both ways.
//
//   examples/mcp-proxy-ts/setup.sh        # npm ci + tsc: proxy.ts -> proxy.js (idempotent)
//   node examples/mcp-proxy-ts/proxy.js [--dialect D] [--timeout SECS] -- CMD [ARGS...]
//
// Defaults as the CLI's: dialect "canonical", timeout 50 s (0: none). stdout carries only messages; stderr
// gets JSON log lines (the guard's events, and the upstream's stderr, redacted). The proxy exits when the
// client closes stdin (or on SIGTERM/SIGINT/SIGHUP; the SDK then closes the upstream's stdin, and sends
// SIGTERM and SIGKILL 2 s apart if it lingers), or when the upstream ends, once every pending request has
// been answered. Exit status: 0, or 2 for bad arguments, 126/127 if CMD cannot be run or is not found.
//
// The guard judges the bytes the client wrote, as the CLI does (stdio.ts pairs them with the SDK's
// parse), so even a line the SDK cannot parse gets the CLI's answer.

import { basename } from "node:path";
import { parseArgs } from "node:util";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { GuardSession, setEnvironment } from "jsonrpc-errors/guard";
import { guardTransport, type Dialect, type GuardedTransport } from "jsonrpc-errors/mcp";
import { relayStderr, startClient, type ClientLine, type ClientLines } from "./stdio.js";

const MAX_BYTES = 10 * 1024 * 1024; // the guard's default largest client message
const SDK_BUFFER_BYTES = 64 * 1024 * 1024; // the CLI's --max-upstream-bytes (the SDK's own default is 10 MiB)

function log(level: string, event: string, message: string, fields: object = {}): void {
  process.stderr.write(`${JSON.stringify({ timestamp: new Date().toISOString(), level: level.toUpperCase(), message, event, ...fields })}\n`);
}
function usage(problem: string): never {
  process.stderr.write(`proxy.js: ${problem}\nusage: node proxy.js [--dialect D] [--timeout SECS] -- CMD [ARGS...]\n`);
  process.exit(2);
}

const split = process.argv.indexOf("--", 2);
const [command, ...args] = split < 0 ? [] : process.argv.slice(split + 1);
if (command === undefined) usage("no upstream command after --");
let flags: { dialect?: string | undefined; timeout?: string | undefined } = {};
try {
  flags = parseArgs({ args: process.argv.slice(2, split), options: { dialect: { type: "string" }, timeout: { type: "string" } } }).values;
} catch (error) {
  usage((error as Error).message);
}
const timeout = Number(flags.timeout ?? "50");
if (!(timeout >= 0)) usage("--timeout takes seconds (0: none)");

setEnvironment(process.env); // the environment's secret values are scrubbed from everything, as the CLI does
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const upstream = new StdioClientTransport({ command, args, env, stderr: "pipe", maxBufferSize: SDK_BUFFER_BYTES });
let guarded: GuardedTransport;
try {
  guarded = guardTransport(upstream, {
    dialect: (flags.dialect ?? "canonical") as Dialect,
    timeoutMs: timeout === 0 ? null : Math.max(1, Math.round(timeout * 1000)),
    upstream: `stdio:${basename(command)}`,
    onEvent: ({ step: _, level, event, ...fields }) => log(level, event, fields.kind ?? event, fields),
  });
} catch (error) {
  usage((error as Error).message); // an unknown dialect: the library's own refusal
}
const client = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: SDK_BUFFER_BYTES });

const stderr = relayStderr(upstream.stderr, guarded, (line) => log("info", "upstream-stderr", line));

/** Text about the upstream that is not its stderr (a transport's error), redacted for the log on a session of
 *  its own: the stderr stream's session carries a key block one read leaves open into the next, and would
 *  take this text for the block's continuation. */
function redactedForLog(text: string): string {
  const session = new GuardSession({ timeoutMs: null });
  try {
    return session.upstreamLog(text);
  } finally {
    session.close();
  }
}

// A forwarded line goes upstream as its own parse, not the SDK's (which drops members its schema lacks).
const relay = (line: ClientLine): void => {
  const sent = typeof line === "number" ? guarded.sendOversize(line) : guarded.sendLine(line);
  sent.catch((e: Error) => log("warn", "upstream-write-failed", redactedForLog(e.message)));
};
guarded.onmessage = (message) => void client.send(message);
guarded.onerror = (error) => log("warn", "upstream-transport-error", redactedForLog(error.message));
guarded.onclose = async () => {
  await stderr.drain(500); // what the upstream wrote to stderr as it died is still on its way
  log("info", "exit", "the upstream ended; the proxy exits");
  process.stdout.write("", () => process.exit(0));
};

let clientLines: ClientLines | undefined;
let stopping = false;
const stop = (why: string) => () => {
  if (stopping) return;
  stopping = true;
  log("info", "client-closed", `${why}; stopping the upstream`);
  const last = clientLines?.rest();
  if (last !== undefined) relay(last);
  void guarded.close();
};
process.stdin.on("end", stop("the client closed its input"));
process.stdout.on("error", stop("the client stopped reading"));
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, stop(`received ${signal}`));

try {
  await guarded.start();
} catch (error) {
  log("error", "upstream-failed", `cannot start the upstream ${JSON.stringify(command)}: ${(error as Error).message}`);
  process.exit((error as NodeJS.ErrnoException).code === "ENOENT" ? 127 : 126);
}
log("info", "started", `upstream ${JSON.stringify(command)} started`, { pid: upstream.pid });
clientLines = await startClient(client, process.stdin, MAX_BYTES, relay, (e) => log("warn", "client-input-failed", e.message));
