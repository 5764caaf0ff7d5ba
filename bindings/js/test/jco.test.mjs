// The WebAssembly COMPONENT (target/component/jsonrpc-errors.wasm, not the wasm-bindgen build), transpiled
// by jco, runs every vector in Node.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { DIALECTS } from "jsonrpc-errors/taxonomy";
import { PKG_DIR, REPO_ROOT, vectorFiles } from "./helpers.mjs";
import { runCase } from "./vectors-lib.js";

const COMPONENT = process.env.JSONRPC_ERRORS_COMPONENT ?? join(REPO_ROOT, "target", "component", "jsonrpc-errors.wasm");
const out = mkdtempSync(join(tmpdir(), "jsonrpc-errors-jco-"));
let api;
let guard;

class Failed extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
}

function outcome(o) {
  if (o.tag === "ok") return o.val;
  const e = { code: o.val.code, message: o.val.message };
  if (o.val.dataJson !== undefined) e.data = JSON.parse(o.val.dataJson);
  throw new Failed(e);
}

const KNOWN_DIALECTS = new Set(DIALECTS);

/** The component's refusal (worded and scrubbed by the guest) as the adapter's failure. */
function refusalFailure(problem) {
  const e = api.refusal(problem);
  const error = { code: e.code, message: e.message };
  if (e.dataJson !== undefined) error.data = JSON.parse(e.dataJson);
  return new Failed(error);
}

/** The typed WIT API takes dialects as an enum: a name outside it gets the component's refusal, as in the
 * Python package and the Rust host. */
function dialect(name) {
  if (KNOWN_DIALECTS.has(name)) return name;
  throw refusalFailure({ tag: "unknown-dialect", val: name });
}

/** The same for the code table's format (the `codes-format` enum). */
function codesFormat(name) {
  if (name === "markdown" || name === "json") return name;
  throw refusalFailure({ tag: "unknown-format", val: name });
}

function adapter() {
  const ctx = (c) => ({ unixMillis: BigInt(c.unixMillis), entropy: c.entropy });
  return {
    map: (input, d, c) => outcome(api.mapErrorJson(input, dialect(d), ctx(c))),
    validate: (raw, o, c) =>
      outcome(
        api.validate(
          raw,
          {
            maxBytes: o.max_bytes === undefined ? undefined : BigInt(o.max_bytes),
            batch: o.batch ?? "reject",
            contentType: o.content_type,
            contentLength: o.content_length === undefined ? undefined : BigInt(o.content_length),
            dialect: dialect(o.dialect ?? "canonical"),
          },
          ctx(c),
        ),
      ),
    sanitize: (raw, d, c) => outcome(api.sanitize(raw, dialect(d), ctx(c))),
    redact: (text) => api.redactJson(text),
    explain: (code, d) => outcome(api.explain(dialect(d), BigInt(code))),
    lookup: (code, d, message, dataJson) => JSON.parse(outcome(api.lookupKind(dialect(d), BigInt(code), message ?? undefined, dataJson ?? undefined))),
    codes: (d, format) => api.codes(d === null ? undefined : dialect(d), codesFormat(format)),
    redactWith: (text, options) => outcome(api.redactWith(text, options)),
    redactJsonValue: (value, options) => outcome(api.redactJsonValue(value, options)),
    kinds: () => api.kindsJson(),
    checkPolicy: (text, env) => outcome(guard.checkPolicy(text, env)),
    maxInputBytes: () => api.maxInputBytes(),
    refusal: (problem) => {
      const [[tag, value]] = Object.entries(problem);
      const val = typeof value === "string" ? value : BigInt(value);
      throw refusalFailure({ tag: tag.replace("_", "-"), val });
    },
    guard: (o) => {
      // The constructor takes the typed options record (the dialect as the WIT enum).
      const s = new guard.Session({
        // Absent: not given (the session resolves it).
        dialect: o.dialect == null ? undefined : dialect(o.dialect),
        maxBytes: o.max_bytes == null ? undefined : BigInt(o.max_bytes),
        batch: o.batch ?? undefined,
        // Absent: not given; null: no limit (0 at the typed boundary).
        timeoutMs: o.timeout_ms === undefined ? undefined : BigInt(o.timeout_ms ?? 0),
        upstream: o.upstream ?? "upstream",
        failedResultBytes: o.failed_result_bytes == null ? undefined : BigInt(o.failed_result_bytes),
        policy: o.policy ?? undefined,
        policyEnv: o.policy_env ?? [],
        environment: o.environment ?? undefined,
        upstreamCredentials: o.upstream_credentials ?? undefined,
        manyClients: o.many_clients ?? undefined,
        maxUpstreamBytes: o.max_upstream_bytes == null ? undefined : BigInt(o.max_upstream_bytes),
      });
      return {
        client: (b, c) => s.clientLine(b, ctx(c)),
        clientOn: (stream, b, c) => s.clientLineOn(BigInt(stream), b, ctx(c)),
        streamClosed: (stream, c) => s.streamClosed(BigInt(stream), ctx(c)),
        clientOversize: (n, head, tail, c) => s.clientOversize(BigInt(n), head, tail, ctx(c)),
        upstream: (b, c) => s.upstreamLine(b, ctx(c)),
        upstreamOversize: (n, head, tail, c) => s.upstreamOversize(BigInt(n), head, tail, ctx(c)),
        failed: (f, c) => s.upstreamFailed(failure(f), ctx(c)),
        exchangeEnded: (id, c) => s.upstreamExchangeEnded(id, ctx(c)),
        expire: (c) => s.expire(ctx(c)),
        settings: () => s.settings(),
        stderr: (b) => s.upstreamStderr(b),
        stderrEnd: () => s.upstreamStderrEnd(),
        log: (t) => s.upstreamLog(t),
        close: () => s[Symbol.dispose]?.(),
      };
    },
    setEnv: (pairs) => api.setEnvironment(pairs.map(([k, v]) => [k, v])),
    failureOf: (e) => (e instanceof Failed ? e.error : null),
  };
}

/** A vector's upstream failure as the WIT variant jco expects ({tag, val}). */
function failure(f) {
  if (f === "closed_output") return { tag: "closed-output" };
  if ("exited" in f) return { tag: "exited", val: f.exited };
  if ("killed" in f) return { tag: "killed", val: f.killed };
  return { tag: "spawn-failed", val: f.spawn_failed };
}

before(async () => {
  assert.ok(existsSync(COMPONENT), `${COMPONENT} is missing: run \`cargo xtask component\``);
  const jco = join(PKG_DIR, "node_modules", "@bytecodealliance", "jco", "dist", "jco.js");
  execFileSync(process.execPath, [jco, "transpile", COMPONENT, "--no-wasi-shim", "--quiet", "-o", out], { stdio: "inherit" });
  ({ api, guard } = await import(pathToFileURL(join(out, "jsonrpc-errors.js")).href));
});

after(() => rmSync(out, { recursive: true, force: true }));

test("the transpiled component imports nothing from its host", async () => {
  const { readFileSync } = await import("node:fs");
  const mod = await WebAssembly.compile(readFileSync(join(out, "jsonrpc-errors.core.wasm")));
  // The only imports of the core module are the canonical built-ins of the component's own exported
  // resource (the guard session's handle table), which jco's glue defines; nothing comes from the host.
  const imports = WebAssembly.Module.imports(mod).map(({ module, name }) => `${module}#${name}`);
  assert.deepEqual(imports.sort(), [
    "[export]jsonrpc-errors:core/guard@0.1.0#[resource-drop]session",
    "[export]jsonrpc-errors:core/guard@0.1.0#[resource-new]session",
  ]);
});

for (const { file, doc } of vectorFiles()) {
  describe(`vectors (jco component, node): ${file}`, () => {
    for (const c of doc.cases) {
      test(c.name, () => {
        const r = runCase(adapter(), c);
        assert.ok(r.pass, r.message);
      });
    }
  });
}
