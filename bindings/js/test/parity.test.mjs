// The package offers every function the WIT exports (as tree-sitter's CI fails when the wasm exports drift
// from its header): a function added to wit/world.wit without an npm binding fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as pkg from "jsonrpc-errors";
import * as guardPkg from "jsonrpc-errors/guard";
import * as redactPkg from "jsonrpc-errors/redact";
import * as runtime from "../dist/runtime.js";
import * as validateSchema from "../dist/validate-schema.js";
import { REPO_ROOT } from "./helpers.mjs";

const WIT = readFileSync(join(REPO_ROOT, "wit", "world.wit"), "utf8");

/** Where each export is reached when not under its camelCase name in the base entry. */
const ELSEWHERE = {
  // Options parsing, callers' rules and HMAC-SHA256 cost ~12 KB gzipped that the base module's budget
  // cannot hold: they live in the redaction module (`jsonrpc-errors/redact`) and the guard module (`/guard`).
  "redact-with": () => redactPkg.redactWith,
  "redact-json-value": () => redactPkg.redactJsonValue,
  // The typed form takes an object and crosses as JSON text (one string each way).
  "map-error": () => pkg.mapError,
  // wasm-bindgen hands a Uint8Array over as one buffer: the text forms exist for wasmtime-py's per-byte cost.
  "validate-text": () => pkg.validateJson,
  "sanitize-text": () => pkg.sanitizeJson,
  // Runtime-internal: every refusal the package throws before a call is worded by the guest.
  refusal: () => runtime.refused,
  "max-input-bytes": () => runtime.maxInputBytes,
};

/** Guard session methods reached under another name. */
const GUARD_METHODS = {
  // The record forms of the line calls (for the Rust host's hot path): the package reads the same outcome from
  // the JSON its session returns (the guard module is wasm-bindgen's, which hands strings over, not records).
  "client-line-outcome": "clientLine",
  "client-line-on-outcome": "clientLineOn",
  "upstream-line-outcome": "upstreamLine",
  // Several lines in one call (the Rust relay under load): the package takes each line as it comes.
  "lines-outcome": "clientLine",
};

function block(text, header) {
  const start = text.indexOf(`${header} {`);
  assert.ok(start >= 0, `${header} not found in wit/world.wit`);
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(start, i);
  }
  throw new Error(`${header} is not closed`);
}

const camel = (name) => name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());

test("every api export is offered by the package", () => {
  const names = [...block(WIT, "interface api").matchAll(/^\s*([a-z][a-z0-9-]*): func\(/gm)].map((m) => m[1]);
  assert.ok(names.length >= 15, `only ${names.length} functions parsed: the parser is broken`);
  const missing = names.filter((name) => {
    const found = name in ELSEWHERE ? ELSEWHERE[name]() : pkg[camel(name)];
    return typeof found !== "function";
  });
  assert.deepEqual(missing, [], `WIT exports without an npm function: ${missing.join(", ")}`);
});

test("every guard session method is offered by GuardSession", () => {
  const resource = block(block(WIT, "interface guard"), "resource session");
  const methods = [...resource.matchAll(/^\s*([a-z][a-z0-9-]*): func\(/gm)].map((m) => m[1]);
  assert.ok(resource.includes("constructor(") && methods.length >= 7, `parsed ${methods}`);
  assert.equal(typeof guardPkg.GuardSession, "function");
  for (const name of methods) {
    const method = GUARD_METHODS[name] ?? camel(name);
    assert.equal(typeof guardPkg.GuardSession.prototype[method], "function", `GuardSession lacks ${method} (WIT ${name})`);
  }
});

test("the redact entry and the guard entry each run redaction on their own module, with the same results", () => {
  assert.notEqual(redactPkg.redactWith, guardPkg.redactWith);
  for (const pkgOf of [redactPkg, guardPkg]) {
    const r = pkgOf.redactWith("mail bob@example.com", { method: "mask" });
    assert.equal(r.text, "mail ***************");
    assert.deepEqual(r.findings, [{ rule: "email", category: "pii", start: 5, end: 20 }]);
  }
});

/** A WIT record's fields and their types, as the WIT writes them. */
function record(iface, name) {
  const body = block(block(WIT, `interface ${iface}`), `record ${name}`);
  return Object.fromEntries([...body.matchAll(/^\s*([a-z][a-z0-9-]*): (.+),$/gm)].map((m) => [m[1], m[2]]));
}

/** A value every redaction option of WIT type `ty` takes that changes nothing of the redaction. */
function given(ty) {
  if (ty.startsWith("list<")) return [];
  return { "option<string>": "0123456789abcdef-key", "option<redaction-method>": "replace" }[ty];
}

// An option the component accepts and a shell does not pass is the class pinned here (it began with
// `allow_patterns`, which the guest read and no shell offered).
test("every redaction option the WIT declares is offered, under its camelCase name, and reaches the guest", () => {
  const fields = record("types", "redaction-options");
  assert.ok(Object.keys(fields).length >= 7 && "allow-patterns" in fields, `parsed ${Object.keys(fields)}: the parser is broken`);
  const text = "mail bob@example.com, token ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d";
  for (const pkgOf of [redactPkg, guardPkg]) {
    const plain = pkgOf.redactWith(text);
    for (const [name, ty] of Object.entries(fields)) {
      const options = { [camel(name)]: given(ty) };
      assert.deepEqual(pkgOf.redactWith(text, options), plain, name);
      assert.deepEqual(pkgOf.redactJsonValue({ log: text }, options).value, { log: plain.text }, name);
    }
  }
  for (const [name, ty] of Object.entries(fields)) {
    const response = guardPkg.errorResponse(new pkg.JsonRpcError(-32000, text), 1, { redaction: { [camel(name)]: given(ty) }, logger: null });
    assert.equal(response.error.message, redactPkg.redactWith(text).text, name);
  }
  // A caller's rule takes every key of the WIT's extra-rule (`window` among them, which was refused).
  const rule = record("types", "extra-rule");
  assert.ok(Object.keys(rule).length >= 10, `parsed ${Object.keys(rule)}`);
  const r = redactPkg.redactWith("order ORD-123456", {
    extraRules: [{ id: "order", category: "pii", pattern: "ORD-[0-9]+", window: "word", keywords: ["ORD-"] }],
  });
  assert.equal(r.text, "order [REDACTED:order]");
});

test("allowPatterns reach the guest", () => {
  const kept = redactPkg.redactWith("mail bob@example.com and alice@example.com", { allowPatterns: ["bob@example\\.com"] }).text;
  assert.ok(kept.startsWith("mail bob@example.com and ") && !kept.includes("alice@example.com"), kept);
});

// For each field of `validate-options`: a body and a value of the field that changes the guest's answer for
// it (so the option is seen to reach the guest, not only to be accepted).
const REQUEST = '{"jsonrpc":"2.0","id":1,"method":"m"}';
const VALIDATE_CHANGES = {
  "max-bytes": [REQUEST, 8],
  batch: [`[${REQUEST}]`, "allow"],
  "content-type": [REQUEST, "text/plain"],
  "content-length": [REQUEST, 3],
  dialect: ['{"jsonrpc":"2.0","id":1}', "mcp"],
};

test("every validate option the WIT declares is offered, under its camelCase name, and reaches the guest", () => {
  const fields = Object.keys(record("types", "validate-options"));
  assert.ok(fields.length >= 5 && fields.includes("content-length"), `parsed ${fields}: the parser is broken`);
  assert.deepEqual(
    Object.entries(validateSchema.VALIDATE_OPTION_KEYS).sort(),
    fields.map((f) => [camel(f), f.replaceAll("-", "_")]).sort(),
  );
  assert.deepEqual(Object.keys(VALIDATE_CHANGES).sort(), [...fields].sort(), "a validate option without a case in VALIDATE_CHANGES");
  const context = { unixMillis: 1767225600000, entropy: 42 };
  for (const [name, [body, value]] of Object.entries(VALIDATE_CHANGES)) {
    const text = pkg.validateJson(body, { [camel(name)]: value, context });
    assert.notEqual(text, pkg.validateJson(body, { context }), name);
    assert.deepEqual(pkg.validate(body, { [camel(name)]: value, context }), JSON.parse(text), name);
  }
});

// A policy file that sets every `[defaults]` key (one per field of the WIT's `policy-defaults`).
const EVERY_DEFAULT =
  '[defaults]\ndialect = "mcp"\ntimeout = 20\nmax_wait = 120\nmax_bytes = 1048576\nmax_upstream_bytes = 8388608\nbatch = "reject"\nfailed_result_bytes = 4096\n';

// A field a shell does not read is the class pinned (as for the options above): the package's `PolicyDefaults`
// type (in its declarations: a type has nothing at run time) and `checkPolicy`'s answer name every field.
test("every policy default the WIT declares is in PolicyDefaults and in checkPolicy's answer", () => {
  const fields = Object.keys(record("guard", "policy-defaults")).map((f) => f.replaceAll("-", "_"));
  assert.ok(fields.length >= 7 && fields.includes("max_wait_ms"), `parsed ${fields}: the parser is broken`);
  const dts = readFileSync(new URL("../dist/policy-defaults.d.ts", import.meta.url), "utf8");
  const declared = [...block(dts, "export interface PolicyDefaults").matchAll(/^ {4}([a-z_]+): /gm)].map((m) => m[1]);
  assert.deepEqual(declared, fields, "the package's PolicyDefaults is not the WIT's policy-defaults");
  assert.match(readFileSync(new URL("../dist/guard-public.d.ts", import.meta.url), "utf8"), /\bPolicyDefaults\b/, "the guard entry does not export the type");
  const answer = guardPkg.checkPolicy(EVERY_DEFAULT, {});
  assert.deepEqual(Object.keys(answer), fields);
  const unset = fields.filter((f) => answer[f] === null);
  assert.deepEqual(unset, [], `EVERY_DEFAULT does not set ${unset}: give the new field its key`);
});

/** The cases of the WIT variant `name` in `interface guard`, in order. */
function variantCases(name) {
  const body = block(block(WIT, "interface guard"), `variant ${name}`);
  return [...body.matchAll(/^\s*([a-z][a-z0-9-]*)[(,]/gm)].map((m) => m[1]);
}

// Each case of `upstream-failure` and `request-failure` in the package's form, and for the record a case
// carries, a value of each field: every one changes the session's answer. `exited` and `killed` carry the
// same number, so a shell that passed one as the other would answer both alike.
const FAILURE_CASES = {
  "upstream-failure": [{ spawnFailed: "no such file" }, { exited: 9 }, { killed: 9 }, "closed-output"],
  "request-failure": [
    { unreachable: "connection reset" },
    { refused: { status: 429 } },
    { refused: { status: 429, retryAfterSecs: 7 } },
    { refused: { status: 503, retryAfterSecs: 7 } },
    "session-gone",
  ],
};

function answerWithOnePending(call) {
  const context = { unixMillis: 1767225600000, entropy: 42 };
  const s = new guardPkg.GuardSession({ dialect: "canonical", upstream: "http://upstream/mcp" });
  try {
    s.clientLine('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}', { context });
    return call(s, { context });
  } finally {
    s.close();
  }
}

// A case of a failure the guest takes and a shell cannot pass (or passes as another) is the class pinned here:
// the package's unions and their marshalling are generated from the WIT (src/failure-schema.ts), and every
// case, and every field of the record a case carries, changes the session's answer.
test("every failure case the WIT declares reaches the guest, each with its own answer", () => {
  const calls = {
    "upstream-failure": (f) => (s, o) => s.upstreamFailedJson(f, o),
    "request-failure": (f) => (s, o) => s.upstreamRequestFailedJson("1", f, o),
  };
  const refusal = Object.keys(record("guard", "http-refusal")).map(camel);
  const given = FAILURE_CASES["request-failure"].flatMap((f) => (f.refused ? Object.keys(f.refused) : []));
  assert.deepEqual([...new Set(given)].sort(), refusal.sort(), "an http-refusal field without a value in FAILURE_CASES");
  for (const [variant, values] of Object.entries(FAILURE_CASES)) {
    const cases = variantCases(variant);
    assert.ok(cases.length >= 3, `parsed ${cases}: the parser is broken`);
    const covered = [...new Set(values.map((v) => (typeof v === "string" ? v : Object.keys(v)[0])))];
    // A case without a payload is its name; one with a payload, an object keyed by its camelCase name.
    const declared = cases.map((c) => (values.includes(c) ? c : camel(c)));
    assert.deepEqual(covered, declared, `${variant}: FAILURE_CASES covers ${covered}, the WIT declares ${cases}`);
    const answers = values.map((v) => answerWithOnePending(calls[variant](v)));
    assert.equal(new Set(answers).size, values.length, `${variant}: cases answered alike: ${answers.join("\n")}`);
  }
});
