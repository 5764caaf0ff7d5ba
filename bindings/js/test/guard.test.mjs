// GuardSession's JavaScript surface: arguments, errors, lifetime, traps and the environment (its behaviour
// is in the vectors, which run in Node, in Chromium and through the jco-transpiled component).
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "jsonrpc-errors";
import { GuardSession, InvalidInputError, ArgumentTypeError, WasmFaultError, setEnvironment } from "jsonrpc-errors/guard";
import { maxInputBytes, trapGuardForTests } from "../dist/runtime.js";

const request = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{}}`;
const sends = (outcome) => outcome.steps.filter((s) => s.step === "send").map((s) => JSON.parse(s.line));

test("a session relays a request and answers it when the upstream ends", () => {
  const s = new GuardSession({ dialect: "watchgate", timeoutMs: 5000, upstream: "stdio:server" });
  const out = s.clientLine(request(1), { context: { unixMillis: 1000, entropy: 7n } });
  assert.deepEqual(out, { steps: [{ step: "forward", to: "upstream" }], pending: 1, deadline: 6000 });
  const answers = sends(s.upstreamFailed({ killed: 9 }));
  assert.deepEqual(answers.map((a) => [a.id, a.error.code]), [[1, -32001]]);
  s.close();
  s.close();
});

test("bad arguments are refused with the package's own errors", () => {
  assert.throws(() => new GuardSession({ dialect: "klingon" }), (e) => e instanceof InvalidInputError && e.error.data.reason === "unknown-dialect");
  assert.throws(() => new GuardSession({ batch: "sometimes" }), (e) => e instanceof InvalidInputError && e.error.data.reason === "unknown-batch-policy");
  assert.throws(() => new GuardSession({ timeoutMs: -1 }), ArgumentTypeError);
  const s = new GuardSession();
  assert.throws(() => s.clientLine(42), ArgumentTypeError);
  assert.throws(() => s.upstreamFailed({ vanished: 1 }), ArgumentTypeError);
  assert.throws(() => s.upstreamFailed({ exited: 2 ** 40 }), ArgumentTypeError);
  s.close();
});

test("an input longer than the guest takes is refused as every call refuses it, and the session goes on", () => {
  const s = new GuardSession();
  const over = maxInputBytes() + 1;
  const tooLarge = (e) =>
    e instanceof InvalidInputError && e.error.code === -32600 && e.error.data.reason === "oversize" && e.error.data.details.includes(`${over} bytes`);
  const huge = new Uint8Array(over).fill(0x20);
  assert.throws(() => s.clientLine(huge), tooLarge);
  assert.throws(() => s.upstreamLine(huge), tooLarge);
  assert.throws(() => s.upstreamStderr(huge), tooLarge);
  assert.throws(() => s.upstreamLog(" ".repeat(over)), tooLarge);
  // A lone surrogate is no text: refused, as Python refuses it, not replaced.
  assert.throws(() => s.upstreamLog("token \uD800"), (e) => e instanceof InvalidInputError && e.error.data.reason === "not-unicode");
  assert.throws(() => s.clientLine(`{"jsonrpc":"2.0","id":"\uDC00","method":"m"}`), (e) => e instanceof InvalidInputError && e.error.data.reason === "not-unicode");
  assert.equal(s.clientLine(request(1)).pending, 1);
  s.close();
});

test("a lone surrogate in a string line is refused at its UTF-8 offset, with or without String.prototype.isWellFormed", () => {
  const refusedAt = (offset) => (e) => e instanceof InvalidInputError && e.error.data.reason === "not-unicode" && e.error.data.details.endsWith(`(at offset ${offset})`);
  const check = () => {
    const s = new GuardSession();
    assert.throws(() => s.clientLine('{"jsonrpc":"2.0","id":"\uD800","method":"m"}'), refusedAt(23));
    assert.throws(() => s.upstreamLine('{"jsonrpc":"2.0","id":1,"result":"\uDC00"}'), refusedAt(34));
    // After an astral character (a surrogate pair, four UTF-8 bytes) and reversed pairs.
    assert.throws(() => s.clientLine('{"jsonrpc":"2.0","id":"😀\uDC00","method":"m"}'), refusedAt(27));
    assert.throws(() => s.clientLine('{"jsonrpc":"2.0","id":"\uDC00\uD800","method":"m"}'), refusedAt(23));
    // Pairs are text: an emoji and non-ASCII text pass, as does an escaped lone surrogate (JSON's business).
    assert.equal(s.clientLine('{"jsonrpc":"2.0","id":"😀 déjà","method":"m"}').pending, 1);
    assert.equal(s.clientLine('{"jsonrpc":"2.0","id":2,"method":"m","params":{"q":"\\ud800"}}').steps.length > 0, true);
    s.close();
  };
  assert.equal(typeof String.prototype.isWellFormed, "function", "Node >= 20 has it: this test covers both paths");
  check();
  const isWellFormed = Object.getOwnPropertyDescriptor(String.prototype, "isWellFormed");
  delete String.prototype.isWellFormed;
  try {
    check(); // the regex alone (Node 18)
  } finally {
    Object.defineProperty(String.prototype, "isWellFormed", isWellFormed);
  }
});

test("a trap re-instantiates the guard module and ends the sessions made before it", () => {
  const old = new GuardSession();
  old.clientLine(request(1));
  assert.throws(trapGuardForTests, (e) => e instanceof WasmFaultError && e.code === -32603);
  assert.throws(() => old.clientLine(request(2)), (e) => e instanceof WasmFaultError);
  const fresh = new GuardSession();
  assert.equal(fresh.clientLine(request(1)).pending, 1);
  fresh.close();
});

test("setEnvironment reaches the guard module too", () => {
  setEnvironment({ DEPLOY_TOKEN: "tok-9f8e7d6c5b4a" });
  try {
    const s = new GuardSession();
    assert.equal(s.upstreamLog("auth with tok-9f8e7d6c5b4a failed"), "auth with [REDACTED:env-value] failed");
    s.close();
    assert.equal(pkg.redact("tok-9f8e7d6c5b4a"), "[REDACTED:env-value]");
  } finally {
    setEnvironment([]);
  }
});

test("a session redacts the environment it was given; one given none keeps the module's", () => {
  const secret = "js-session-env-8a4c2f6e10"; // in no environment the module was handed
  const line = `upstream auth with ${secret}\n`;
  const own = new GuardSession({ environment: { UPSTREAM_API_TOKEN: secret } });
  const logged = own.upstreamStderr(line);
  assert.ok(!logged.includes(secret) && logged.includes("upstream auth with"), logged);
  const plain = new GuardSession();
  assert.ok(plain.upstreamStderr(line).includes(secret));
  assert.throws(() => new GuardSession({ environment: "UPSTREAM_API_TOKEN" }), ArgumentTypeError);
  own.close();
  plain.close();
});

test("one failed request is answered alone, and bad failures are refused", () => {
  const s = new GuardSession({ dialect: "canonical", timeoutMs: 5000, upstream: "stdio:server" });
  for (const n of [1, 2, 3]) s.clientLine(request(n), { context: { unixMillis: 1000, entropy: 7n } });
  const out = s.upstreamRequestFailed("1", { refused: { status: 429, retryAfterSecs: 7 } });
  assert.deepEqual(sends(out).map((a) => [a.id, a.error.data.type, a.error.data.retry_after_secs]), [[1, "rate-limited", 7]]);
  assert.equal(out.pending, 2);
  assert.equal(s.upstreamRequestFailed("2", "session-gone").pending, 1);
  const third = s.upstreamRequestFailed("3", { unreachable: "connection reset" });
  assert.deepEqual(sends(third).map((a) => a.id), [3]);
  assert.equal(third.pending, 0);
  assert.deepEqual(sends(s.upstreamRequestFailed("3", { unreachable: "connection reset" })), []);
  assert.throws(() => s.upstreamRequestFailed("1", { refused: { status: 70_000 } }), ArgumentTypeError);
  assert.throws(() => s.upstreamRequestFailed("1", { vanished: "x" }), ArgumentTypeError);
  assert.throws(() => s.upstreamRequestFailed(1, "session-gone"), ArgumentTypeError);
  s.close();
});

test("an A2A stream is settled by its final event or its end, with an end step", () => {
  const s = new GuardSession({ dialect: "a2a", timeoutMs: 5000, upstream: "http://agent/rpc" });
  const stream = (n) => `{"jsonrpc":"2.0","id":${n},"method":"SendStreamingMessage","params":{"message":{"parts":[]}}}`;
  const event = (n, state) => `{"jsonrpc":"2.0","id":${n},"result":{"statusUpdate":{"taskId":"t","status":{"state":"${state}"}}}}`;
  s.clientLine(stream(1));
  s.clientLine(stream(2));
  let out = s.upstreamLine(event(1, "TASK_STATE_WORKING"));
  assert.deepEqual([out.steps.map((st) => st.step), out.pending], [["forward"], 2]);
  out = s.upstreamLine(event(1, "TASK_STATE_COMPLETED"));
  assert.deepEqual([out.steps.map((st) => st.step), out.pending], [["forward", "send", "end"], 1]);
  s.upstreamLine(event(2, "TASK_STATE_WORKING"));
  out = s.upstreamExchangeEnded("2");
  assert.deepEqual([out.steps.map((st) => st.step), out.pending], [["end"], 0]);
  assert.deepEqual(s.upstreamExchangeEnded("2").steps.map((st) => st.step), ["event"]);
  assert.throws(() => s.upstreamExchangeEnded(2), ArgumentTypeError);
  s.close();
});
