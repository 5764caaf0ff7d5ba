// The stdio of `jsonrpc-errors guard`, which the SDK's stdio transports cannot give a proxy:
//
// 1. Lines as bytes, both ways. The SDK's transports parse every line (JSON.parse, then the SDK's schema) and
//    write their own serialization: an id beyond 2^53 changed value, an id like `1.5` failed the schema, a
//    member the schema lacks vanished, and a client line over the SDK's buffer closed its transport for good.
//    Here the guard is handed the bytes as read and forwards exactly those bytes; a line over the limit is
//    discarded as it streams and reported by its length (the session answers it).
// 2. The upstream as a process tree. It runs in a process group of its own, and carries a tag in its
//    environment that its descendants inherit (also those that leave the group with setsid): its end is its
//    exit, not its stdout's (a grandchild can hold that open), and when it ends nothing of it is left.
// 3. The upstream's stderr, redacted in bursts (what arrives within 20 ms, so a trace written at once is
//    redacted whole), one log record per line.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import type { Readable, Stream, Writable } from "node:stream";
import type { LineTransport, UpstreamFailure } from "jsonrpc-errors/mcp";

/** A line as read (its newline removed), or the length of one over the limit (discarded as it streamed). */
/** A line too long to take, discarded as it streamed: its length, and its first and last bytes (the guard reads its id there). */
export interface Discarded {
  length: number;
  head: Uint8Array;
  tail: Uint8Array;
}

export type Line = Buffer | Discarded;

/** How much of each end of a discarded line is kept (the session's reading window). */
const EDGE_BYTES = 4096;

/** The first `n` bytes of `pieces`, copied. */
function firstBytes(pieces: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let left = n;
  for (const p of pieces) {
    if (left <= 0) break;
    out.push(p.subarray(0, left));
    left -= Math.min(left, p.length);
  }
  return Buffer.concat(out);
}

/** The last `n` bytes of `pieces`, copied. */
function lastBytes(pieces: Buffer[], n: number): Buffer {
  const out: Buffer[] = [];
  let left = n;
  for (let i = pieces.length - 1; i >= 0 && left > 0; i--) {
    const p = pieces[i]!;
    out.unshift(p.subarray(Math.max(0, p.length - left)));
    left -= Math.min(left, p.length);
  }
  return Buffer.concat(out);
}

export interface LineReader {
  /** The last line, unterminated, once the input has ended (a final line without a newline still counts). */
  rest(): Line | undefined;
}

/** Reads `input` as lines of at most `maxBytes` bytes, each handed to `receive` in order, as the CLI reads. */
export function readLines(input: Readable, maxBytes: number, receive: (line: Line) => void): LineReader {
  let partial: Buffer[] = [];
  let partialBytes = 0;
  // Of a line past the limit, only its ends are kept.
  let head: Buffer | undefined;
  let tail: Buffer = Buffer.alloc(0);
  const take = (): Line => {
    if (head === undefined) return Buffer.concat(partial, partialBytes);
    const discarded = { length: partialBytes, head, tail };
    [head, tail] = [undefined, Buffer.alloc(0)];
    return discarded;
  };
  input.on("data", (chunk: Buffer) => {
    for (let start = 0; ; ) {
      const end = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      partialBytes += piece.length;
      // Past the limit the line is only counted (and its ends kept): a client or upstream can send any
      // length, memory stays bounded.
      if (partialBytes <= maxBytes) partial.push(piece);
      else if (head === undefined) {
        partial.push(piece);
        [head, tail, partial] = [firstBytes(partial, EDGE_BYTES), lastBytes(partial, EDGE_BYTES), []];
      } else {
        if (head.length < EDGE_BYTES) head = Buffer.concat([head, piece.subarray(0, EDGE_BYTES - head.length)]);
        tail = lastBytes([tail, piece], EDGE_BYTES);
      }
      if (end < 0) return;
      const line = take();
      [partial, partialBytes, start] = [[], 0, end + 1];
      receive(line);
    }
  });
  return {
    rest() {
      const line = partialBytes > 0 ? take() : undefined;
      [partial, partialBytes] = [[], 0];
      return line;
    },
  };
}

const NEWLINE = Buffer.from("\n");

/** Writes `line` and its newline; resolves once written (rejects with the stream's error). */
export function writeLine(output: Writable, line: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const data = typeof line === "string" ? `${line}\n` : Buffer.concat([line, NEWLINE]);
    output.write(data, (error) => (error ? reject(error) : resolve()));
  });
}

/** The environment variable that marks the upstream's descendants. */
export const UPSTREAM_TAG = "JSONRPC_ERRORS_UPSTREAM_OF";

/** How long an upstream that exited gets for its output to end (and the other way round): the CLI's SETTLE. */
const SETTLE_MS = 500;

/** How long what is left of an ended upstream gets between SIGTERM and SIGKILL. */
const LEFTOVER_GRACE_MS = 300;

/**
 * Live processes whose environment carries `tag` (Linux: /proc/PID/environ, readable for the processes this
 * user owns). Node cannot ask the kernel to reparent an upstream's orphans to it (prctl), so this is how the
 * descendants that left the upstream's process group are found.
 */
function taggedProcesses(tag: string): number[] {
  if (process.platform !== "linux") return [];
  const needle = Buffer.from(`\0${UPSTREAM_TAG}=${tag}\0`);
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      // A leading NUL, so that the first variable matches as a whole too.
      if (Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${entry}/environ`)]).includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours.
    }
  }
  return pids;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether `pid` is a live process (a zombie counts as gone); without /proc, whether it can be signalled. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !"ZX".includes(stat[stat.lastIndexOf(")") + 2] ?? "X");
  } catch {
    if (process.platform === "linux") return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface UpstreamOptions {
  /** The upstream's whole environment (the tag is added). */
  env: NodeJS.ProcessEnv;
  /** How long it gets after its stdin closes, and after SIGTERM, before the next step (the CLI's --grace). */
  graceMs: number;
}

/**
 * The upstream server as a {@link LineTransport}: its stdout's lines as read, lines to its stdin as given. It
 * ends when it has exited and its stdout has ended, or when one of them happened SETTLE_MS ago (a grandchild
 * holding its stdout, or a process that closed its stdout and runs on): `onclose` then says how, with the
 * exit status or signal.
 */
export class UpstreamProcess implements LineTransport {
  onrawline?: ((line: Uint8Array) => void) | undefined;
  onoversize?: ((length: number, ends?: { head: Uint8Array; tail: Uint8Array }) => void) | undefined;
  onclose?: ((failure?: UpstreamFailure) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;

  /** The value of UPSTREAM_TAG in the upstream's environment, and so in its descendants'. */
  readonly tag = `${process.pid}-${randomUUID()}`;
  #child: ChildProcessWithoutNullStreams | undefined;
  #exit: UpstreamFailure | undefined;
  #outputEnded = false;
  #settle: NodeJS.Timeout | undefined;
  #ended: UpstreamFailure | undefined;
  #whenEnded: Promise<void>;
  #markEnded: () => void = () => {};
  #whenExited: Promise<void>;
  #markExited: () => void = () => {};
  /** The proxy had to signal it: it did not exit after its stdin closed. */
  #terminated = false;
  /** The longest line read from its stdout; a longer one is discarded as it streams (`onoversize`). Set
   *  before `start`, from what the guard session resolved (`GuardedTransport.settings.max_upstream_bytes`). */
  maxLineBytes: number | undefined;

  constructor(
    readonly command: string,
    readonly args: string[],
    readonly options: UpstreamOptions,
  ) {
    this.#whenEnded = new Promise((resolve) => (this.#markEnded = resolve));
    this.#whenExited = new Promise((resolve) => (this.#markExited = resolve));
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get stderr(): Readable | undefined {
    return this.#child?.stderr;
  }

  /** Spawns it; rejects with the system's error (ENOENT, EACCES, ...) when it cannot run. */
  start(): Promise<void> {
    const maxLineBytes = this.maxLineBytes;
    if (maxLineBytes === undefined) return Promise.reject(new Error("maxLineBytes is set before start"));
    return new Promise((resolve, reject) => {
      // detached: a process group (and session) of its own, which the proxy signals whole.
      const child = spawn(this.command, this.args, {
        env: { ...this.options.env, [UPSTREAM_TAG]: this.tag },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
      child.on("error", (error) => {
        if (this.#child === undefined) reject(error);
        else this.onerror?.(error); // a signal that could not be sent, ...: not an end (its exit is)
      });
      child.once("spawn", () => {
        this.#child = child;
        // A write to a process that is gone fails its write's callback; the stream's own error is that too.
        child.stdin.on("error", () => {});
        const output = readLines(child.stdout, maxLineBytes, (line) => this.#received(line));
        child.stdout.on("end", () => {
          const last = output.rest();
          if (last !== undefined) this.#received(last);
          this.#outputEnded = true;
          this.#maybeEnded();
        });
        child.on("exit", (code, signal) => {
          this.#exit = code !== null ? { exited: code } : { killed: (signal && constants.signals[signal]) || 0 };
          this.#markExited();
          this.#maybeEnded();
        });
        resolve();
      });
    });
  }

  #received(line: Line): void {
    if (Buffer.isBuffer(line)) this.onrawline?.(line);
    else this.onoversize?.(line.length, { head: line.head, tail: line.tail });
  }

  #maybeEnded(): void {
    if (this.#ended !== undefined) return;
    if (this.#exit !== undefined && this.#outputEnded) return this.#end(this.#exit);
    // One happened, the other may be SETTLE_MS away: every answer written before the exit is read first.
    clearTimeout(this.#settle);
    this.#settle = setTimeout(() => this.#end(this.#exit ?? "closed-output"), SETTLE_MS);
  }

  #end(how: UpstreamFailure): void {
    if (this.#ended !== undefined) return;
    clearTimeout(this.#settle);
    this.#ended = how;
    this.#markEnded();
    this.onclose?.(how);
  }

  sendLine(line: string | Uint8Array): Promise<void> {
    const child = this.#child;
    if (child === undefined || !child.stdin.writable) return Promise.reject(new Error("the upstream's input is closed"));
    return writeLine(child.stdin, line);
  }

  /**
   * Stops it the way MCP says: its stdin closed, SIGTERM to its tree if it has not exited `graceMs` later,
   * SIGKILL another `graceMs` later. Resolves once it has ended (and `onclose` was called).
   */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    if (this.#exit === undefined) {
      child.stdin.end();
      if (!(await this.#exitsWithin(this.options.graceMs))) {
        this.#terminated = true;
        this.#signalTree("SIGTERM");
        if (!(await this.#exitsWithin(this.options.graceMs))) this.#signalTree("SIGKILL");
      }
    }
    await this.#whenEnded;
  }

  async #exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.#whenExited.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Its process group and every process carrying its tag. */
  #signalTree(signal: NodeJS.Signals): number[] {
    const group = this.#child?.pid;
    if (group !== undefined) {
      try {
        process.kill(-group, signal);
      } catch {
        // The group is empty.
      }
    }
    const tagged = taggedProcesses(this.tag);
    for (const pid of tagged) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone meanwhile.
      }
    }
    return tagged;
  }

  /**
   * Once it has ended: whatever it left behind (its group's other members, and descendants that left the
   * group) gets SIGTERM, and SIGKILL if still there LEFTOVER_GRACE_MS later. Returns how many were found.
   */
  async killLeftovers(): Promise<number> {
    const group = this.#child?.pid;
    if (group === undefined) return 0;
    const left = (): number[] => [...taggedProcesses(this.tag).filter(alive), ...(this.#groupAlive(group) ? [-group] : [])];
    let found = left();
    const count = found.length;
    if (count === 0) return 0;
    this.#signalTree("SIGTERM");
    const deadline = Date.now() + LEFTOVER_GRACE_MS;
    while (found.length > 0 && Date.now() < deadline) {
      await delay(20);
      found = left();
    }
    if (found.length > 0) this.#signalTree("SIGKILL");
    return count;
  }

  #groupAlive(group: number): boolean {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** The proxy's exit status for how it ended, as the CLI's: its own status, 128+N for signal N, 124 when
   *  the proxy had to terminate it. */
  exitStatus(): number {
    const how = this.#exit ?? this.#ended;
    if (this.#terminated) return 124;
    if (how === undefined || how === "closed-output") return 124;
    if ("exited" in how) return how.exited & 0xff;
    if ("killed" in how) return Math.min(128 + how.killed, 255);
    return 125;
  }
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
export function relayStderr(stderr: Stream | null | undefined, redactor: StderrRedactor, log: (line: string) => void) {
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
