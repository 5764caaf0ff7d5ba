// An MCP stdio proxy with the guard in the middle: it decides exactly what `jsonrpc-errors guard` decides (the
// policy is the same WebAssembly, reached through `jsonrpc-errors/mcp`'s GuardedTransport). The client's
// lines come from this process's stdin and its answers go to stdout; the upstream is a child process
// (stdio.ts). Both sides carry lines as bytes: the guard judges the bytes the client wrote and forwards
// exactly those bytes, as the CLI does (the SDK's stdio transports would parse and re-serialize every line).
//
//   examples/mcp-proxy-ts/setup.sh        # npm ci + tsc: proxy.ts -> proxy.js (idempotent)
//   node examples/mcp-proxy-ts/proxy.js [--config FILE] [--dialect D] [--timeout SECS] [--failed-result-bytes N] -- CMD [ARGS...]
//
// Defaults as the CLI's: dialect "canonical", timeout 50 s (0: none). `--config FILE` is a policy file, as
// `jsonrpc-errors guard --config` takes it: its text goes to the session as it is (the guard module reads
// it); the options given here override its [defaults]. A file the module refuses stops the proxy at start
// (FILE:LINE:COLUMN: what is wrong, on stderr, exit 2); SIGHUP reads it again for the requests from then on
// (a refused reload keeps the old policy and logs `policy-reload-refused`). stdout carries only messages; stderr
// gets JSON log lines (the guard's events, and the upstream's stderr, redacted). The proxy exits when the
// client closes stdin (or on SIGTERM/SIGINT, and SIGHUP without --config: the upstream's stdin is closed, then its process group
// and its descendants get SIGTERM and SIGKILL 2 s apart if it lingers), or when the upstream exits, once
// every pending request has been answered; nothing the upstream started is left running. Exit status as
// the CLI's: the upstream's own (128+N if signal N ended it), 124 if the proxy had to terminate it, 2 for
// bad arguments, 126/127 if CMD cannot be run or is not found.

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { GuardSession, checkPolicy, setEnvironment, InvalidInputError } from "jsonrpc-errors/guard";
import { guardTransport, type Dialect, type GuardedTransport } from "jsonrpc-errors/mcp";
import { readLines, relayStderr, UpstreamProcess, writeLine, type Line, type LineReader } from "./stdio.js";

const GRACE_MS = 2_000; // the CLI's --grace

function log(level: string, event: string, message: string, fields: object = {}): void {
  process.stderr.write(`${JSON.stringify({ timestamp: new Date().toISOString(), level: level.toUpperCase(), message, event, ...fields })}\n`);
}
function usage(problem: string): never {
  process.stderr.write(`proxy.js: ${problem}\nusage: node proxy.js [--config FILE] [--dialect D] [--timeout SECS] [--failed-result-bytes N] -- CMD [ARGS...]\n`);
  process.exit(2);
}

/** The policy file's text, checked by the guard module; or why not, as `FILE:LINE:COLUMN: details` (the CLI's words). */
function readPolicy(file: string): { text: string } | { refused: string } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    return { refused: `${file}: cannot read the policy file: ${(error as Error).message}` };
  }
  try {
    checkPolicy(text, process.env);
    return { text };
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const data = (error.error.data ?? {}) as { line?: number; column?: number; details?: string };
    if (data.details === undefined) return { refused: `${file}: ${error.error.message}` };
    return { refused: data.line === undefined ? `${file}: ${data.details}` : `${file}:${data.line}:${data.column}: ${data.details}` };
  }
}

const split = process.argv.indexOf("--", 2);
const [command, ...args] = split < 0 ? [] : process.argv.slice(split + 1);
if (command === undefined) usage("no upstream command after --");
let flags: { config?: string | undefined; dialect?: string | undefined; timeout?: string | undefined; "failed-result-bytes"?: string | undefined } = {};
try {
  const options = { config: { type: "string" }, dialect: { type: "string" }, timeout: { type: "string" }, "failed-result-bytes": { type: "string" } } as const;
  flags = parseArgs({ args: process.argv.slice(2, split), options }).values;
} catch (error) {
  usage((error as Error).message);
}
const timeout = flags.timeout === undefined ? undefined : Number(flags.timeout);
if (timeout !== undefined && !(timeout >= 0)) usage("--timeout takes seconds (0: none)");
const failedResultBytes = flags["failed-result-bytes"] === undefined ? undefined : Number(flags["failed-result-bytes"]);
if (failedResultBytes !== undefined && !(Number.isInteger(failedResultBytes) && failedResultBytes >= 0)) usage("--failed-result-bytes takes a number of bytes");
const configFile = flags.config;
let policy: string | undefined;
if (configFile !== undefined) {
  const read = readPolicy(configFile);
  if ("refused" in read) {
    process.stderr.write(`proxy.js: ${read.refused}\n`);
    process.exit(2);
  }
  policy = read.text;
}

setEnvironment(process.env); // the environment's secret values are scrubbed from everything, as the CLI does
const upstream = new UpstreamProcess(command, args, { env: process.env, graceMs: GRACE_MS });
let guarded: GuardedTransport;
try {
  // Options left out take the policy file's [defaults], else the built-in ones (the session resolves them).
  guarded = guardTransport(upstream, {
    ...(flags.dialect !== undefined ? { dialect: flags.dialect as Dialect } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout === 0 ? null : Math.max(1, Math.round(timeout * 1000)) } : {}),
    upstream: `stdio:${basename(command)}`,
    ...(failedResultBytes !== undefined ? { failedResultBytes } : {}),
    ...(policy !== undefined ? { policy, policyEnv: process.env } : {}),
    onEvent: ({ step: _, level, event, ...fields }) => log(level, event, fields.kind ?? event, fields),
  });
} catch (error) {
  usage((error as Error).message); // an unknown dialect: the library's own refusal
}
// The line limits this proxy reads with: what the session resolved.
upstream.maxLineBytes = guarded.settings.max_upstream_bytes;
const maxBytes = guarded.settings.max_bytes;

/** Text about the upstream that is not its stderr (a failed write), redacted for the log on a session of
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

const relay = (line: Line): void => {
  const sent = Buffer.isBuffer(line) ? guarded.sendLine(line) : guarded.sendOversize(line.length, { head: line.head, tail: line.tail });
  sent.catch((e: Error) => log("warn", "client-line-failed", redactedForLog(e.message)));
};
// What the guard sends the client is written as it is: the upstream's bytes, or the guard's own line.
guarded.onrawline = (line) => void writeLine(process.stdout, line).catch(() => stop("the client stopped reading")());
guarded.onerror = (error) => log("warn", "upstream-transport-error", redactedForLog(error.message));

let stderr: ReturnType<typeof relayStderr> | undefined;
guarded.onclose = async () => {
  // Every pending request has been answered. An upstream that closed its output but runs on is stopped
  // first, as the CLI does; then whatever it left behind goes, and its last stderr is relayed.
  await upstream.close();
  const leftovers = await upstream.killLeftovers();
  if (leftovers > 0) log("info", "leftovers", "terminated what was left of the upstream's process tree", { count: leftovers });
  await stderr?.drain(500);
  const status = upstream.exitStatus();
  log("info", "exit", `the upstream ended; the proxy exits with ${status}`, { status });
  process.stdout.write("", () => process.exit(status));
};

let clientLines: LineReader | undefined;
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
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, stop(`received ${signal}`));
process.on("SIGHUP", configFile === undefined ? stop("received SIGHUP") : () => reload(configFile));

/** SIGHUP with --config: the file read again; the session takes it for new requests, or keeps the old one. */
function reload(file: string): void {
  const read = readPolicy(file);
  if ("refused" in read) {
    log("warn", "policy-reload-refused", "received SIGHUP; the new policy file is refused, the old one still holds", { detail: read.refused });
    return;
  }
  try {
    guarded.setPolicy(read.text, process.env);
    log("info", "policy-reloaded", `received SIGHUP; reloaded ${file} for the requests from now on`);
  } catch (error) {
    log("warn", "policy-reload-refused", "received SIGHUP; the new policy file is refused, the old one still holds", { detail: (error as Error).message });
  }
}

try {
  await guarded.start();
} catch (error) {
  log("error", "upstream-failed", `cannot start the upstream ${JSON.stringify(command)}: ${(error as Error).message}`);
  process.exit((error as NodeJS.ErrnoException).code === "ENOENT" ? 127 : 126);
}
log("info", "started", `upstream ${JSON.stringify(command)} started`, { pid: upstream.pid });
stderr = relayStderr(upstream.stderr, guarded, (line) => log("info", "upstream-stderr", line));
clientLines = readLines(process.stdin, maxBytes, relay);
process.stdin.on("error", (e) => log("warn", "client-input-failed", e.message));
