// The example proxy (examples/mcp-proxy-ts/proxy.js: the SDK's stdio transports with jsonrpc-errors/mcp in
// between) over real pipes, in front of examples/guard/misbehaving_server.py (the official Python SDK):
// an SDK Client's session compared with the same session straight to the server, then raw lines no SDK
// client would send, compared with what `jsonrpc-errors guard` answers.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { REPO_ROOT } from "./helpers.mjs";
import { FAILED_RESULT_BYTES, outcome } from "./mcp-helpers.mjs";

const PY = join(REPO_ROOT, "bindings", "python", ".venv", "bin", "python");
const SERVER = join(REPO_ROOT, "examples", "guard", "misbehaving_server.py");
const PROXY = join(REPO_ROOT, "examples", "mcp-proxy-ts", "proxy.js");
const GUARD = process.env.JSONRPC_ERRORS_BIN ?? join(REPO_ROOT, "target", "release", "jsonrpc-errors");
// In the server's failures, data and stderr (misbehaving_server.py); the last two are traceback text.
const SECRETS = ["ghp_A1b2", "hunter2", "sk_live_51", "sk-proj-Zq8x", "/home/alice", "Traceback (most recent call last)", 'File "'];
const CREDENTIALS = SECRETS.slice(0, 4);
const CALL_TIMEOUT_MS = 10_000;

function requireFixtures() {
  assert.ok(existsSync(PROXY), `${PROXY} is missing: run examples/mcp-proxy-ts/setup.sh`);
  assert.ok(existsSync(PY), `${PY} is missing: run tests/guard/setup.sh (the Python SDK for the server)`);
}

const env = () => Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined));


/** One scripted SDK client session against `command`; what the client saw, and the command's stderr. */
async function session(command, args) {
  const transport = new StdioClientTransport({ command, args, env: env(), stderr: "pipe", cwd: REPO_ROOT });
  let stderr = "";
  transport.stderr.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  const transportErrors = [];
  client.onerror = (e) => transportErrors.push(String(e).split("\n")[0]);
  const closed = new Promise((resolve) => (client.onclose = resolve));
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  const seen = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    deliver(message, extra);
  };
  const pid = transport.pid;
  const call = (name, args = {}, options = {}) => outcome(client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, ...options }));
  const progress = [];
  const steps = {
    tools: (await client.listTools()).tools.map((t) => t.name).sort(),
    echo: await call("echo", { text: "hello" }),
    count: await call("count", { steps: 3, delay_ms: 20 }, { onprogress: (p) => progress.push(p.progress) }),
    info: await outcome(client.readResource({ uri: "info://server" })),
  };
  const errorsBefore = transportErrors.length;
  const failures = {
    query_orders: await call("query_orders", { customer: "acme" }),
    charge_card: await call("charge_card", { amount: 42.5 }),
    export_report: await call("export_report"),
    flaky_print: await call("flaky_print"),
  };
  const flakyErrors = transportErrors.slice(errorsBefore);
  const crashStarted = performance.now();
  const crash = { ...(await call("crash")), ms: performance.now() - crashStarted };
  await within(closed, 5000);
  await client.close();
  return { steps, progress, failures, flakyErrors, crash, seen, stderr, pid };
}

/** `promise`'s value, or `fallback` after `ms` (the timer does not hold the process). */
function within(promise, ms, fallback) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function leaked(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return SECRETS.filter((s) => text.includes(s));
}

function gone(pid, withinMs) {
  const deadline = Date.now() + withinMs;
  return new Promise((resolve) => {
    const poll = () => {
      try {
        process.kill(pid, 0);
      } catch {
        return resolve(true);
      }
      if (Date.now() > deadline) return resolve(false);
      setTimeout(poll, 25);
    };
    poll();
  });
}

describe("an SDK client through the example proxy to the Python SDK's misbehaving server", () => {
  let direct;
  let proxied;
  test("both sessions run (straight to the server, and through the proxy)", { timeout: 60_000 }, async () => {
    requireFixtures();
    [direct, proxied] = await Promise.all([session(PY, [SERVER]), session("node", [PROXY, "--", PY, SERVER])]);
  });

  test("normal calls, resources and progress are unchanged", () => {
    assert.ok(direct && proxied, "the sessions did not run");
    assert.deepEqual(proxied.steps, direct.steps);
    assert.deepEqual(proxied.steps.echo.result.content, [{ type: "text", text: "hello" }]);
    assert.equal(proxied.steps.count.result.structuredContent.result, "counted 3");
    // The TS client can lose the last progress notification to the response (tests/guard/README.md): a prefix.
    for (const p of [direct.progress, proxied.progress]) assert.ok(p.length > 0 && p.every((v, i) => v === i + 1), `progress ${p}`);
    assert.match(proxied.steps.info.result.contents[0].text, /^misbehaving-server 1\.0\.0/);
  });

  test("failing tools and raised errors are canonical and clean; the direct session leaks", () => {
    assert.ok(direct && proxied, "the sessions did not run");
    assert.ok(leaked(direct.seen).length >= 5, `the direct run leaked only ${leaked(direct.seen)}: fixture changed?`);
    assert.deepEqual(leaked(proxied.seen), []);
    for (const name of ["query_orders", "export_report"]) {
      const { result } = proxied.failures[name];
      assert.equal(result?.isError, true, name);
      for (const item of result.content) assert.ok(Buffer.byteLength(item.text) <= FAILED_RESULT_BYTES, `${name}: ${Buffer.byteLength(item.text)} bytes`);
    }
    // export_report's ~13 KB text is cut to the limit, its first and last lines kept.
    const report = proxied.failures.export_report.result.content[0].text;
    assert.ok(Buffer.byteLength(report) > FAILED_RESULT_BYTES / 2, `${Buffer.byteLength(report)} bytes`);
    assert.match(report, /export failed after a long run/);
    assert.match(report, /processed batch 199 of 200 \(ok\)$/);
    assert.match(proxied.failures.query_orders.result.content[0].text, /\[REDACTED:github-token\]/);
    assert.equal(direct.failures.charge_card.error.code, -32010);
    assert.deepEqual(proxied.failures.charge_card.error, {
      code: -32019,
      message: "MCP error -32019: Upstream error",
      data: { ...proxied.failures.charge_card.error.data, type: "upstream-error", category: "upstream" },
    });
  });

  test("the server's stray stdout line never reaches the client", () => {
    assert.ok(direct && proxied, "the sessions did not run");
    assert.match(direct.flakyErrors.join("\n"), /SyntaxError/);
    assert.deepEqual(proxied.flakyErrors, []);
    assert.deepEqual(proxied.failures.flaky_print.result, direct.failures.flaky_print.result);
  });

  test("the server dying mid-request: the pending call is answered at once, then the proxy exits", async () => {
    assert.ok(direct && proxied, "the sessions did not run");
    assert.equal(direct.crash.error.message, "MCP error -32000: Connection closed"); // the SDK's own
    const { error, ms } = proxied.crash;
    assert.deepEqual([error.code, error.message, error.data.type, error.data.details], [-32000, "MCP error -32000: Upstream connection failed", "upstream-connection-failed", "stdio:python"]);
    assert.ok(ms < CALL_TIMEOUT_MS / 4, `answered after ${ms} ms`);
    assert.equal(await gone(proxied.pid, 3000), true, "the proxy is still running");
  });

  test("the proxy's stderr is JSON log lines: the server's startup secret redacted, no credential anywhere", () => {
    assert.ok(direct && proxied, "the sessions did not run");
    const records = proxied.stderr.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    assert.ok(records.every((r) => typeof r.event === "string" && typeof r.level === "string"));
    const startup = records.filter((r) => r.event === "upstream-stderr" && r.message.includes("connecting with API_KEY="));
    assert.equal(startup.length, 1, proxied.stderr);
    assert.match(startup[0].message, /API_KEY=\[REDACTED:/);
    assert.deepEqual(CREDENTIALS.filter((s) => proxied.stderr.includes(s)), []);
    assert.ok(records.some((r) => r.event === "sanitized" && r.kind === "upstream-error" && r.method === "tools/call"));
    assert.ok(records.some((r) => r.event === "answered" && r.kind === "upstream-connection-failed"));
  });
});

/** Drives a stdio proxy with raw lines, one answer awaited per line; the answers in canonical form. */
async function rawSession(command, args, lines) {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: env(), stdio: ["pipe", "pipe", "pipe"] });
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stderr.resume();
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const got = [];
  try {
    for (const [line, answered] of lines) {
      child.stdin.write(`${line}\n`);
      if (!answered) continue;
      const next = await within(answers.next(), 15_000, { timedOut: true });
      assert.ok(!next.timedOut, `${command}: no answer to ${line.slice(0, 80)}`);
      assert.equal(next.done, false, `${command}: stdout ended`);
      got.push(canonical(JSON.parse(next.value)));
    }
    child.stdin.end();
    const started = performance.now();
    const code = await within(exited, 10_000, "still running");
    return { got, code, exitMs: performance.now() - started };
  } finally {
    child.kill("SIGKILL");
  }
}

/** Members sorted, the generated correlation ids and timestamps removed. */
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.keys(value).filter((k) => k !== "correlation_id" && k !== "timestamp").sort().map((k) => [k, canonical(value[k])]));
}

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const RAW_LINES = [
  [JSON.stringify(INITIALIZE), true],
  ['{"jsonrpc":"2.0","method":"notifications/initialized"}', false],
  ["this is not JSON", true],
  ['[{"jsonrpc":"2.0","id":2,"method":"ping"}]', true],
  ['{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"}', true],
  ['{"jsonrpc":"2.0","id":4,"method":"ping","stray":true}', true], // the SDK refuses a stray member; the guard forwards it
  ['{"jsonrpc":"2.0","id":5,"method":"ping"}\r', true],
  [`{"jsonrpc":"2.0","id":6,"method":"ping","params":{"pad":"${"x".repeat(11 * 1024 * 1024)}"}}`, true], // over the 10 MiB limit
  ['{"jsonrpc":"1.0","id":7,"method":"ping"}', true],
  ['{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after all that"}}}', true],
];

test("lines no SDK client sends get what `jsonrpc-errors guard` answers; a closed stdin ends the proxy", { timeout: 90_000 }, async (t) => {
  requireFixtures();
  const proxy = await rawSession("node", [PROXY, "--", PY, SERVER], RAW_LINES);
  const codes = proxy.got.map((m) => m.error?.code ?? m.id);
  assert.deepEqual(codes, [1, -32700, -32600, -32600, 4, 5, -32600, -32600, 8]);
  assert.deepEqual(proxy.got.map((m) => m.error?.data?.reason).filter(Boolean), ["batch-not-supported", "duplicate-member", "oversize", "invalid-jsonrpc-version"]);
  assert.equal(proxy.code, 0);
  assert.ok(proxy.exitMs < 5000, `exited ${proxy.exitMs} ms after stdin closed`);
  if (!existsSync(GUARD)) {
    t.skip(`${GUARD} is not built: the answers were checked, not compared with the CLI's`);
    return;
  }
  const cli = await rawSession(GUARD, ["guard", "--", PY, SERVER], RAW_LINES);
  assert.deepEqual(proxy.got, cli.got);
});

test("an upstream that cannot be run: exit 127 when not found, 126 when not executable, as the CLI", async () => {
  requireFixtures();
  for (const [command, status] of [["/nonexistent/mcp-server", 127], [join(REPO_ROOT, "examples"), 126]]) { // a directory cannot be run
    const child = spawn("node", [PROXY, "--", command], { stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end();
    child.stdout.resume();
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await within(new Promise((resolve) => child.on("exit", resolve)), 10_000, "still running");
    assert.equal(code, status, stderr);
    assert.match(stderr, /"event":"upstream-failed"/);
  }
});
