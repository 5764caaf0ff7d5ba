// What the npm guard's lone-surrogate check costs per line (a script, not a test):
//   node bench/js/bench-lines.mjs [N]    (`scripts/bench.sh js-lines`; N calls per round for the small lines)
//
// A string line given to GuardSession is checked for lone surrogates before it is encoded (the guest takes
// only Unicode text; TextEncoder would replace one silently). Measured in one run, rounds alternating, median
// round reported, for typical MCP lines (tools/call requests of ~2 KB and ~4 KB, ASCII JSON; one of ~4 KB
// with non-ASCII text) and a 10 MB one (ids differ from line to line, so each is a new pending request):
// 1. the check alone: the regular expression the package used until issue 29, and String.prototype
//    .isWellFormed() (Node >= 20), each against JSON.stringify, which the adapter runs on every message;
// 2. the whole session call on the line as a string (the check, the encoding, the guard) vs on its bytes
//    (no check: bytes are judged as they are), so the check's share of a call is read off;
// 3. GuardedTransport.send of the message (stringify, the check where one is needed, the session call).
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { GuardSession } from "jsonrpc-errors/guard";
import { guardTransport } from "jsonrpc-errors/mcp";

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = 7;
// The check as src/runtime.ts had it before isWellFormed: a high surrogate not followed by a low one, or a
// low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const encoder = new TextEncoder();

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function text(bytes, flavour) {
  const words = flavour === "ascii" ? ["deploy", "build", "status", "ok", "item", "value", "42"] : ["déploiement", "状態", "ok", "🚀", "Größe", "значение"];
  const out = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const word = words[i % words.length];
    out.push(word);
    size += encoder.encode(word).length + 1;
  }
  return out.join(" ");
}

const request = (t) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search", arguments: { query: t } } });

const cases = [
  { name: "tools/call request, 2 KB ASCII", message: request(text(2000, "ascii")), n: N },
  { name: "tools/call request, 4 KB ASCII", message: request(text(4000, "ascii")), n: N },
  { name: "tools/call request, 4 KB non-ASCII", message: request(text(4000, "mixed")), n: N },
  { name: "tools/call request, 10 MB ASCII", message: request(text(10_000_000, "ascii")), n: 3 },
  { name: "tools/call request, 10 MB non-ASCII", message: request(text(10_000_000, "mixed")), n: 3 },
];

/** Nanoseconds per session.clientLine call over `lines`, in a session of its own (each id new to it). */
function sessionCost(lines) {
  const session = new GuardSession({ timeoutMs: 600_000 });
  try {
    return perCall(lines.length, (i) => session.clientLine(lines[i]));
  } finally {
    session.close();
  }
}

function perCall(n, f) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) f(i);
  return Number(process.hrtime.bigint() - started) / n;
}

function fmt(ns) {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

async function sendCost(message, n) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = () => {};
  const client = guardTransport(clientSide, { timeoutMs: 600_000 });
  await serverSide.start();
  await client.start();
  let id = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await client.send({ ...message, id: ++id });
  const ns = Number(process.hrtime.bigint() - started) / n;
  await client.close();
  return ns;
}

const hasIsWellFormed = typeof String.prototype.isWellFormed === "function";
console.log(`Node ${process.version}; String.prototype.isWellFormed ${hasIsWellFormed ? "present" : "absent (the package falls back to the regex)"}`);
console.log(`${ROUNDS} rounds, alternating, median round; per line\n`);
for (const { name, message, n } of cases) {
  const line = JSON.stringify(message);
  const bytes = encoder.encode(line);
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify({ ...message, id: i + 1 }));
  const lineBytes = lines.map((l) => encoder.encode(l));
  const figures = { stringify: [], regex: [], wellFormed: [], sessionString: [], sessionBytes: [], send: [] };
  for (let round = 0; round < ROUNDS; round++) {
    figures.stringify.push(perCall(n, () => JSON.stringify(message)));
    figures.regex.push(perCall(n, () => LONE_SURROGATE.exec(line)));
    if (hasIsWellFormed) figures.wellFormed.push(perCall(n, () => line.isWellFormed()));
    figures.sessionString.push(sessionCost(lines));
    figures.sessionBytes.push(sessionCost(lineBytes));
    figures.send.push(await sendCost(message, n));
  }
  const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, v.length ? median(v) : NaN]));
  console.log(`${name} (${bytes.length} bytes):`);
  console.log(`  JSON.stringify of the message        ${fmt(m.stringify)}`);
  console.log(`  lone-surrogate regex                 ${fmt(m.regex)}  (${(m.regex / m.stringify).toFixed(2)}x stringify)`);
  if (hasIsWellFormed) {
    console.log(`  isWellFormed()                       ${fmt(m.wellFormed)}  (${(m.wellFormed / m.stringify).toFixed(3)}x stringify; regex / isWellFormed = ${(m.regex / m.wellFormed).toFixed(0)}x)`);
  }
  console.log(`  session.clientLine(string)           ${fmt(m.sessionString)}`);
  console.log(`  session.clientLine(bytes)            ${fmt(m.sessionBytes)}  (string / bytes = ${(m.sessionString / m.sessionBytes).toFixed(2)}x)`);
  console.log(`  GuardedTransport.send                ${fmt(m.send)}  (the regex alone: ${((100 * m.regex) / m.send).toFixed(1)}% of it)\n`);
}
