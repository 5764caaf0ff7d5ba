// The package's own behaviour: typed errors, trap recovery, the call context, the environment, JsonRpcError.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as pkg from "jsonrpc-errors";
import { faultCount, trapForTests } from "../dist/runtime.js";

const ctx = { unixMillis: 1_767_225_600_000, entropy: 42n };

test("mapError returns the response object; the context makes it deterministic", () => {
  const a = pkg.mapError({ kind: "security-violation", details: "blocked", id: "r1" }, "watchgate", { context: ctx });
  const b = pkg.mapError({ kind: "security-violation", details: "blocked", id: "r1" }, "watchgate", { context: ctx });
  assert.deepEqual(a, b);
  assert.equal(a.id, "r1");
  assert.ok("error" in a);
  assert.equal(a.error.data.timestamp, "2026-01-01T00:00:00Z");
  // number and bigint entropy are the same u64
  const c = pkg.mapError({ kind: "security-violation", details: "blocked", id: "r1" }, "watchgate", { context: { ...ctx, entropy: 42 } });
  assert.deepEqual(a, c);
});

test("without a context, correlation ids are random and timestamps current", () => {
  const ids = new Set();
  for (let i = 0; i < 200; i++) ids.add(pkg.mapError({ kind: "timeout" }).error.data.correlation_id);
  assert.equal(ids.size, 200);
  const ts = Date.parse(pkg.mapError({ kind: "security-violation" }, "watchgate").error.data.timestamp);
  assert.ok(Math.abs(ts - Date.now()) < 5_000);
});

test("bad input throws InvalidInputError carrying the JSON-RPC error object", () => {
  assert.throws(
    () => pkg.mapError({ kind: "nope" }),
    (e) =>
      e instanceof pkg.InvalidInputError &&
      e instanceof pkg.JsonRpcErrorsError &&
      e.code === -32602 &&
      e.error.message === "Invalid params" &&
      e.error.data.reason === "unknown-kind",
  );
  assert.throws(() => pkg.explain(-32601, "klingon"), (e) => e instanceof pkg.InvalidInputError && e.error.data.reason === "unknown-dialect");
  assert.throws(() => pkg.mapErrorJson("{not json"), (e) => e instanceof pkg.InvalidInputError && e.error.data.reason === "not-json");
  assert.throws(() => pkg.redact(42), pkg.ArgumentTypeError);
  assert.throws(() => pkg.explain(1.5), pkg.ArgumentTypeError);
  assert.throws(() => pkg.mapError({ kind: "timeout" }, "canonical", { context: { unixMillis: -1, entropy: 0 } }), pkg.ArgumentTypeError);
});

test("a trap in the wasm becomes the -32603 WasmFaultError and the module is re-instantiated", () => {
  pkg.setEnvironment({ MY_API_TOKEN: "s3cr3t-value-123" });
  const before = faultCount();
  assert.throws(trapForTests, (e) => e instanceof pkg.WasmFaultError && e.code === -32603 && e.error.message === "Internal error");
  assert.equal(faultCount(), before + 1);
  // The fresh instance works, and the environment was handed to it again.
  assert.ok(!pkg.redact("value s3cr3t-value-123 here").includes("s3cr3t"));
  assert.equal(pkg.mapError({ kind: "method-not-found", method: "m", id: 7 }).id, 7);
  pkg.setEnvironment([]);
  assert.ok(pkg.redact("value s3cr3t-value-123 here").includes("s3cr3t"));
});

test("redact and redactDetails", () => {
  const text = "remote: Invalid token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d for user";
  assert.equal(pkg.redact(text), "remote: Invalid token [REDACTED:github-token] for user");
  const d = pkg.redactDetails(text);
  assert.equal(d.text, pkg.redact(text));
  assert.deepEqual(d.findings, [{ rule: "github-token", category: "token", start: 22, end: 62 }]);
  assert.equal(pkg.redactJson(text), JSON.stringify(d));
});

test("setEnvironment keeps only secret-looking names; values are scrubbed everywhere", () => {
  assert.equal(pkg.setEnvironment({ HOME: "/home/someone", DB_PASSWORD: "correct-horse-battery", PATH: undefined }), 1);
  try {
    const r = pkg.mapError({ kind: "configuration-error", details: "login with correct-horse-battery failed" });
    assert.ok(!JSON.stringify(r).includes("correct-horse-battery"));
  } finally {
    assert.equal(pkg.setEnvironment([]), 0);
  }
});

test("validate accepts strings, Uint8Array and ArrayBuffer", () => {
  const body = '{"jsonrpc":"2.0","id":3,"method":"tools/list"}';
  const want = { valid: true, id: 3, method: "tools/list" };
  assert.deepEqual(pkg.validate(body), want);
  const bytes = new TextEncoder().encode(body);
  assert.deepEqual(pkg.validate(bytes), want);
  assert.deepEqual(pkg.validate(bytes.buffer), want);
  const bad = pkg.validate("{", { context: ctx });
  assert.ok("error" in bad && bad.error.code === -32700);
  const batch = pkg.validate(`[${body},${body}]`, { batch: "allow" });
  assert.ok(Array.isArray(batch) && batch.length === 2);
});

test("sanitize, explain, lookupKind, codes", () => {
  const s = pkg.sanitize('{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}', "canonical", { context: ctx });
  assert.ok("error" in s && s.error.code === -32601);
  const e = pkg.explain(-32601);
  assert.equal(e.code, -32601);
  assert.equal(e.kinds[0].kind, "method-not-found");
  assert.equal(pkg.lookupKind(-32601), "method-not-found");
  assert.equal(pkg.lookupKind(123456), null);
  assert.ok(pkg.codes("mcp").startsWith("# Error codes"));
  assert.equal(JSON.parse(pkg.codes(null, "json")).version, pkg.TAXONOMY_VERSION);
});

test("JsonRpcError: thrown by servers, parsed back by clients", () => {
  const err = pkg.JsonRpcError.fromKind("tool-not-exposed", { tool: "admin_delete" }, "thoughtgate", { context: ctx });
  assert.ok(err instanceof Error && err instanceof pkg.JsonRpcError);
  assert.equal(err.kind, "tool-not-exposed");
  const response = err.toResponse(9);
  assert.equal(response.id, 9);
  const wire = JSON.parse(JSON.stringify(response));
  const back = pkg.JsonRpcError.fromResponse(wire, "thoughtgate");
  assert.equal(back.kind, "tool-not-exposed");
  assert.equal(back.code, err.code);
  assert.equal(back.message, err.message);
  assert.deepEqual(back.data, err.data);
  assert.equal(pkg.JsonRpcError.fromResponse({ code: -32601, message: "Method not found" }).kind, "method-not-found");
  assert.equal(pkg.JsonRpcError.fromResponse({ code: 7, message: "?" }).kind, null);
  assert.throws(() => pkg.JsonRpcError.fromResponse({ jsonrpc: "2.0", result: 1, id: 1 }), pkg.ArgumentTypeError);
  // mcp reports a policy denial as a tool result and error-model every kind as a domain result: a clear
  // refusal naming the way to that response, not a type error
  for (const [kind, fields, dialect] of [["policy-denied", { tool: "x" }, "mcp"], ["timeout", {}, "error-model"]]) {
    assert.throws(
      () => pkg.JsonRpcError.fromKind(kind, fields, dialect),
      (e) => e instanceof pkg.ArgumentValueError && !(e instanceof pkg.ArgumentTypeError) && /as a result/.test(e.message),
    );
    assert.ok("result" in pkg.mapError({ kind, ...fields }, dialect));
  }
  // where mcp does use an error object, there is one
  assert.equal(pkg.JsonRpcError.fromKind("method-not-found", { method: "m" }, "mcp").code, -32601);
});

test("the taxonomy is exported", () => {
  assert.ok(pkg.ERROR_KINDS.includes("rate-limited"));
  assert.ok(pkg.DIALECTS.includes("a2a"));
  assert.equal(pkg.KINDS["rate-limited"].httpStatus, 429);
});

test("text that is not Unicode is refused as the guest words it, at the UTF-8 offset Python and the CLI report", () => {
  assert.throws(
    () => pkg.redact("lone \ud800 surrogate"),
    (e) =>
      e instanceof pkg.InvalidInputError &&
      e.error.data.reason === "not-unicode" &&
      e.error.data.details === "input is not valid Unicode (at offset 5)",
  );
  // A lone low surrogate after an astral character: the offset counts the UTF-8 bytes before it.
  assert.throws(() => pkg.redact("😀\udc00"), (e) => e instanceof pkg.InvalidInputError && e.error.data.details.endsWith("(at offset 4)"));
  assert.equal(pkg.redact("😀 fine"), "😀 fine");
});

test("what JSON cannot carry is the caller's mistake, reported with the package's own error class", () => {
  for (const id of [NaN, Infinity, -Infinity]) {
    assert.throws(() => pkg.mapError({ kind: "timeout", id }), pkg.ArgumentTypeError, String(id));
  }
  assert.throws(() => pkg.mapError({ kind: "timeout", id: 1n }), pkg.ArgumentTypeError);
  const cyclic = { kind: "timeout" };
  cyclic.self = cyclic;
  assert.throws(() => pkg.mapError(cyclic), pkg.ArgumentTypeError);
  assert.throws(() => pkg.lookupKind(-32000, "vapora", undefined, { n: NaN }), pkg.ArgumentTypeError);
});

test("inputs over the guest's limit are refused unread, with the host's error; validate answers an oversize body itself", () => {
  const limit = 64 * 1024 * 1024;
  const big = new Uint8Array(limit + 1);
  assert.throws(
    () => pkg.sanitize(big),
    (e) =>
      e instanceof pkg.InvalidInputError &&
      e.error.code === -32600 &&
      e.error.data.details === `input of ${limit + 1} bytes exceeds the limit of ${limit} bytes`,
  );
  assert.throws(() => pkg.redact("a".repeat(limit + 1)), (e) => e instanceof pkg.InvalidInputError && e.error.data.reason === "oversize");
  assert.equal(pkg.validate(big).error.data.reason, "oversize");
  assert.equal(pkg.validate(new Uint8Array(2048), { maxBytes: 1024 }).error.data.reason, "oversize");
});

test("each dialect's generic data fields are accepted on every kind, and only for that dialect", () => {
  const ctx = { context: { unixMillis: 1_767_225_600_000, entropy: 42n } };
  const wg = pkg.mapError({ kind: "rate-limited", retry_after_secs: 3, details: "quota", request_id: "req_1", id: 1 }, "watchgate", ctx);
  assert.deepEqual(wg.error.data, { details: "quota", request_id: "req_1", timestamp: "2026-01-01T00:00:00Z" });
  const em = pkg.mapError({ kind: "timeout", suggestion: "Retry in a minute.", context: { region: "eu" }, id: 1 }, "error-model", ctx);
  assert.deepEqual(em.result.error.details, { suggestion: "Retry in a minute.", context: { region: "eu" } });
  assert.throws(
    () => pkg.mapError({ kind: "timeout", suggestion: "x" }, "canonical"),
    (e) => e instanceof pkg.InvalidInputError && e.data.reason === "unknown-field" && /'error-model' accepts it/.test(e.data.details),
  );
});
