// Per-call figures of the npm package (a script, not a test): `node bench/bench.mjs` after `cargo xtask js`.
//
// 1. mapError vs a plain-JS function that builds the same response object (goal: ≤ 8×).
// 2. redact on a 1 MB log vs the same rule set (redaction/rules.toml) run as JS RegExps one after another
//    (goal: ≥ 3× the speed).
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mapError, redact, setEnvironment } from "jsonrpc-errors";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
setEnvironment([]);

function bench(label, fn, { minMs = 1500, batch = 1 } = {}) {
  for (let i = 0; i < 200; i++) fn(); // warm up
  let n = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < minMs * 1e6) {
    for (let i = 0; i < batch; i++) fn();
    n += batch;
    elapsed = Number(process.hrtime.bigint() - start);
  }
  const ns = elapsed / n;
  console.log(`${label.padEnd(52)} ${fmt(ns).padStart(12)} per call  (${n} calls)`);
  return ns;
}

function fmt(ns) {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

// ------------------------------------------------------------------------------------------ mapError
const input = { kind: "method-not-found", method: "tools/call", id: 1 };

/** What a hand-written JS server would do for this one kind: build the same object. */
function plainMethodNotFound(e) {
  return {
    jsonrpc: "2.0",
    error: {
      code: -32601,
      message: "Method not found",
      data: { type: "method-not-found", category: "client", retryable: false, correlation_id: randomUUID(), details: e.method },
    },
    id: e.id ?? null,
  };
}

const a = mapError(input);
const b = plainMethodNotFound(input);
a.error.data.correlation_id = b.error.data.correlation_id = "x";
if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`the plain-JS baseline differs:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);

console.log("mapError({kind: 'method-not-found', method, id}, 'canonical')");
let sink = 0;
/**
 * Per-call ns of each candidate: the best of `rounds` rounds, candidates alternating within a round, so a
 * shared machine's slow spells hit both sides of the ratio alike.
 */
function interleaved(candidates, rounds = 12) {
  const best = candidates.map(() => Infinity);
  for (const [, fn] of candidates) for (let i = 0; i < 2000; i++) fn(); // warm up
  for (let r = 0; r < rounds; r++) {
    candidates.forEach(([, fn, n], i) => {
      const start = process.hrtime.bigint();
      for (let k = 0; k < n; k++) fn();
      best[i] = Math.min(best[i], Number(process.hrtime.bigint() - start) / n);
    });
  }
  candidates.forEach(([label], i) => console.log(`${label.padEnd(52)} ${fmt(best[i]).padStart(12)} per call  (best of ${rounds} rounds)`));
  return best;
}
const [tMap, tPlain] = interleaved([
  ["  jsonrpc-errors mapError", () => { sink += mapError(input).error.code; }, 20000],
  ["  plain JS object (same object, randomUUID)", () => { sink += plainMethodNotFound(input).error.code; }, 200000],
]);
console.log(`  ratio mapError / plain JS: ${(tMap / tPlain).toFixed(2)}×  (goal ≤ 8×)\n`);

// ------------------------------------------------------------------------------------------ redact
/** The rules of redaction/rules.toml as JS RegExps: the minimal translation of Rust regex syntax. */
function jsRules() {
  const toml = readFileSync(join(root, "redaction", "rules.toml"), "utf8");
  const rules = [];
  let id = null;
  for (const line of toml.split("\n")) {
    const idm = /^id = "([^"]+)"/.exec(line);
    if (idm) id = idm[1];
    const pm = /^pattern = '''(.*)'''\s*$/.exec(line);
    if (pm && id) {
      let src = pm[1];
      let flags = "g";
      for (;;) {
        const m = /^\(\?([a-z]+)\)/.exec(src); // leading inline flags → RegExp flags
        if (!m) break;
        flags += m[1];
        src = src.slice(m[0].length);
      }
      src = src.replace(/\(\?P</g, "(?<");
      rules.push({ id, re: new RegExp(src, flags) });
      id = null;
    }
  }
  return rules;
}

function makeLog(bytes) {
  const lines = [
    "2026-01-01T00:00:00Z INFO request handled method=tools/list status=200 elapsed_ms=12",
    "2026-01-01T00:00:01Z DEBUG cache hit for key session-catalog shard=3 size=4096",
    "2026-01-01T00:00:02Z WARN upstream slow url=https://api.example.com/v1/items latency_ms=950",
    "2026-01-01T00:00:03Z INFO user profile loaded region=eu-west-1 features=search,export",
    "2026-01-01T00:00:04Z ERROR auth failed token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d for user",
    "2026-01-01T00:00:05Z INFO mail sent to alice.smith@example.org from /home/alice/app",
    "2026-01-01T00:00:06Z DEBUG header Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123456789",
    "2026-01-01T00:00:07Z INFO tools/call finished name=search items=25 cursor=eyJwYWdlIjoyfQ",
  ];
  const out = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 10 < 7 ? lines[i % 4] : lines[4 + (i % 4)];
    out.push(line);
    size += line.length + 1;
  }
  return out.join("\n");
}

const rules = jsRules();
function redactJs(text) {
  for (const { id, re } of rules) text = text.replace(re, `[REDACTED:${id}]`);
  return text;
}

const log = makeLog(1 << 20);
console.log(`redact on a ${(log.length / 1024).toFixed(0)} KiB log (${rules.length} rules)`);
if (!redact(log).includes("[REDACTED:github-token]")) throw new Error("redact found nothing");
const tWasm = bench("  jsonrpc-errors redact", () => { sink += redact(log).length; }, { minMs: 3000 });
const tJs = bench("  JS RegExps, one rule after another", () => { sink += redactJs(log).length; }, { minMs: 3000 });
console.log(`  speed jsonrpc-errors / JS RegExps: ${(tJs / tWasm).toFixed(2)}×  (goal ≥ 3×)`);
console.log(`  throughput: ${((log.length / (1 << 20)) / (tWasm / 1e9)).toFixed(1)} MiB/s vs ${((log.length / (1 << 20)) / (tJs / 1e9)).toFixed(1)} MiB/s`);
if (sink === 0) console.log("");

// The shared mixed logs written by `cargo run --release -p jsonrpc-errors-host --example bench`.
for (const label of ["1mb", "10mb"]) {
  const path = join(root, "target", "bench", `mixed-${label}.log`);
  let text;
  try { text = readFileSync(path, "utf8"); } catch { continue; }
  const t0 = performance.now();
  sink += redact(text).length;
  const ms = performance.now() - t0;
  console.log(`redact shared mixed-${label}.log: ${(Buffer.byteLength(text) / 1e6 / (ms / 1e3)).toFixed(1)} MB/s (Node, wasm-bindgen)`);
}
