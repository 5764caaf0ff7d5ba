// Redaction under options and JSON-aware redaction through `jsonrpc-errors/redact`, and the taxonomy table.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { ArgumentTypeError, InvalidInputError, kinds, kindsJson } from "jsonrpc-errors";
import { redactJsonValue, redactWith, redactWithJson, setEnvironment, WasmFaultError } from "jsonrpc-errors/redact";
import * as guardPkg from "jsonrpc-errors/guard";
import { trapRedactForTests } from "../dist/runtime.js";
import { PKG_DIR } from "./helpers.mjs";

test("camelCase options reach the guest as its snake_case keys", () => {
  const r = redactWith("ticket TCK-998877 from bob@example.com", {
    method: "mask",
    disable: ["pii"],
    extraRules: [{ id: "ticket-id", category: "pii-ticket", pattern: "TCK-([0-9]{6})", secretGroups: [1] }],
  });
  assert.equal(r.text, "ticket TCK-****** from bob@example.com");
  assert.deepEqual(r.findings, [{ rule: "ticket-id", category: "pii-ticket", start: 11, end: 17 }]);
  const hashed = redactWith("bob@example.com alice@example.com bob@example.com", { method: "hash", hashKey: "k".repeat(16) }).text;
  const tags = [...hashed.matchAll(/\[REDACTED:email:([0-9a-f]{12})\]/g)].map((m) => m[1]);
  assert.equal(tags.length, 3);
  assert.ok(tags[0] === tags[2] && tags[0] !== tags[1], hashed);
});

test("a misspelt option is refused by name, a bad value by the guest", () => {
  assert.throws(() => redactWith("x", { hash_key: "0123456789abcdef" }), (e) => e instanceof ArgumentTypeError && /hash_key/.test(e.message));
  assert.throws(() => redactWith("x", { extraRules: [{ id: "a", category: "b", pattern: "c", secret_groups: [1] }] }), ArgumentTypeError);
  assert.throws(
    () => redactWith("x", { method: "hash", hashKey: "short" }),
    (e) => e instanceof InvalidInputError && e.code === -32602 && e.data.reason === "invalid-redaction-options",
  );
  assert.throws(() => redactWithJson("x", "{method: mask}"), (e) => e instanceof InvalidInputError && /not valid/.test(e.data.details));
});

test("redactJsonValue takes JS values and names each secret's JSON Pointer", () => {
  const token = "ghp_" + "a1B2c3D4e5".repeat(3) + "a1B2c3";
  const r = redactJsonValue({ password: "pw-123", [token]: [1, null, `failed ${token}`] });
  assert.deepEqual(r.value, { password: "[REDACTED:sensitive-key]", "[REDACTED:github-token]": [1, null, "failed [REDACTED:github-token]"] });
  assert.ok(r.findings.some((f) => f.path === "/[REDACTED:github-token]" && f.key === true));
  assert.ok(r.findings.some((f) => f.path === "/[REDACTED:github-token]/2" && f.start === 7 && f.end === 47 && f.key === undefined));
  assert.throws(() => redactJsonValue({ n: Number.NaN }), ArgumentTypeError);
  assert.deepEqual(redactJsonValue({ session: "s-1" }, { sensitiveKeys: ["session"] }).value, { session: "[REDACTED:sensitive-key]" });
});

test("kinds() is the taxonomy table with every kind's fields", () => {
  const table = kinds();
  assert.equal(JSON.stringify(table), kindsJson());
  const mnf = table.find((k) => k.kind === "method-not-found");
  assert.deepEqual([mnf.code, mnf.message, mnf.fields], [-32601, "Method not found", [{ name: "method", type: "string", required: true }]]);
  assert.ok(table.length >= 40 && new Set(table.map((k) => k.kind)).size === table.length);
});

test("jsonrpc-errors/redact runs on a module of its own: a trap there re-instantiates it alone", () => {
  const session = new guardPkg.GuardSession();
  assert.equal(session.clientLine('{"jsonrpc":"2.0","id":1,"method":"ping"}').pending, 1);
  assert.throws(trapRedactForTests, (e) => e instanceof WasmFaultError && e.code === -32603);
  // The redaction module works again, and the guard module (a session made before the trap) was not touched.
  assert.equal(redactWith("password=hunter2hunter2").text, "password=[REDACTED:secret-assignment]");
  assert.equal(session.clientLine('{"jsonrpc":"2.0","id":2,"method":"ping"}').pending, 2);
  assert.equal(guardPkg.redactWith("password=hunter2hunter2").text, "password=[REDACTED:secret-assignment]");
  session.close();
});

test("setEnvironment reaches the redaction module, also after it was re-instantiated", () => {
  setEnvironment({ DEPLOY_TOKEN: "tok-9f8e7d6c5b4a" });
  try {
    assert.equal(redactWith("auth with tok-9f8e7d6c5b4a failed").text, "auth with [REDACTED:env-value] failed");
    assert.throws(trapRedactForTests, WasmFaultError);
    assert.equal(redactWith("auth with tok-9f8e7d6c5b4a failed").text, "auth with [REDACTED:env-value] failed");
    assert.equal(guardPkg.redactWith("tok-9f8e7d6c5b4a").text, "[REDACTED:env-value]");
  } finally {
    setEnvironment([]);
  }
  assert.equal(redactWith("auth with tok-9f8e7d6c5b4a failed").text, "auth with tok-9f8e7d6c5b4a failed");
});

test("jsonrpc-errors/redact alone refuses what the guest would not take, worded by its own module", () => {
  // A process that loads only this entry: the refusals come from the redaction module (no base module there).
  const script = `
import { redactWith, InvalidInputError } from "jsonrpc-errors/redact";
const reason = (f) => { try { f(); return "accepted"; } catch (e) { return e instanceof InvalidInputError ? e.error.data.reason : String(e); } };
console.log(JSON.stringify([reason(() => redactWith("token \\uD800")), reason(() => redactWith("x".repeat(64 * 1024 * 1024 + 1)))]));
`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: PKG_DIR, encoding: "utf8" });
  assert.deepEqual(JSON.parse(out.trim()), ["not-unicode", "oversize"]);
});
