// jsonrpc-errors/mcp's GuardedTransport in process: an SDK Client and an SDK McpServer connected by an
// InMemoryTransport pair, once directly and once through the adapter; then the adapter's own contract
// (what it hands on, when it answers, how it ends) against a scripted inner transport.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { GuardSession } from "jsonrpc-errors/guard";
import { GuardedTransport, guardTransport } from "jsonrpc-errors/mcp";
import { trapGuardForTests } from "../dist/runtime.js";
import { misbehavingServer, SECRETS } from "./mcp-fixture/server.js";
import { FAILED_RESULT_BYTES, outcome } from "./mcp-helpers.mjs";

/** A connected client/server pair; `seen` is every message the client received, `events` the guard's. */
async function connect({ guarded, hooks = {}, options = {} }) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = misbehavingServer({ ...hooks, crash: () => void serverSide.close() });
  await server.connect(serverSide);
  const events = [];
  const transport = guarded ? guardTransport(clientSide, { onEvent: (e) => events.push(e), ...options }) : clientSide;
  const client = new Client({ name: "test-client", version: "1.0.0" });
  const transportErrors = [];
  client.onerror = (e) => transportErrors.push(String(e));
  await client.connect(transport);
  const seen = [];
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    seen.push(message);
    deliver(message, extra);
  };
  return { client, server, transport, seen, events, transportErrors };
}


async function normalSteps(client) {
  const progress = [];
  return {
    tools: (await client.listTools()).tools.map((t) => t.name),
    echo: await client.callTool({ name: "echo", arguments: { text: "hello" } }),
    count: await client.callTool({ name: "count", arguments: { steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) }),
    progress,
    resources: await client.listResources(),
    info: await client.readResource({ uri: "info://server" }),
  };
}

function leaked(value) {
  const text = JSON.stringify(value);
  return SECRETS.filter((s) => text.includes(s));
}

describe("an SDK client and McpServer through the adapter (InMemoryTransport)", () => {
  test("normal calls, resources and progress are exactly what a direct connection gives", async () => {
    const direct = await connect({ guarded: false });
    const guarded = await connect({ guarded: true });
    try {
      const want = await normalSteps(direct.client);
      const got = await normalSteps(guarded.client);
      assert.deepEqual(want.progress, [1, 2, 3]);
      assert.deepEqual(got, want);
      assert.equal(guarded.client.getServerVersion()?.name, "misbehaving-server");
      assert.deepEqual(guarded.transportErrors, []);
      // Nothing was rewritten, answered or dropped on the way.
      assert.deepEqual(guarded.events, []);
      assert.equal(guarded.transport.pending, 0);
    } finally {
      await direct.client.close();
      await guarded.client.close();
    }
  });

  test("a failing tool gives an isError result with the leak redacted, where the direct one leaks everything", async () => {
    const direct = await connect({ guarded: false });
    const guarded = await connect({ guarded: true });
    try {
      const call = { name: "query_orders", arguments: { customer: "acme" } };
      const raw = await direct.client.callTool(call);
      assert.deepEqual(leaked(raw).sort(), SECRETS.filter((s) => s !== "sk_live_51").sort(), "the fixture leaks directly");
      const clean = await guarded.client.callTool(call);
      assert.equal(clean.isError, true);
      const text = clean.content[0].text;
      assert.match(text, /^query for acme failed \(GITHUB_TOKEN=\[REDACTED:github-token\]/);
      assert.ok(Buffer.byteLength(text) <= FAILED_RESULT_BYTES, `${Buffer.byteLength(text)} bytes`);
      assert.deepEqual(leaked(guarded.seen), []);
      const [redacted, ...others] = guarded.events;
      assert.deepEqual([redacted.event, redacted.method, others], ["redacted", "tools/call", []]);
      assert.match(redacted.detail, /github-token/);
    } finally {
      await direct.client.close();
      await guarded.client.close();
    }
  });

  test("a JSON-RPC error with a server-specific code becomes the canonical upstream-error; a plain one stays -32603, scrubbed", async () => {
    const direct = await connect({ guarded: false });
    const guarded = await connect({ guarded: true });
    try {
      const rawCharges = await outcome(direct.client.readResource({ uri: "ledger://charges" }));
      assert.equal(rawCharges.error.code, -32010);
      assert.ok(leaked(rawCharges).length >= 3, "the fixture leaks directly");
      const charges = await outcome(guarded.client.readResource({ uri: "ledger://charges" }));
      assert.equal(charges.error.code, -32019);
      assert.equal(charges.error.message, "MCP error -32019: Upstream error");
      assert.equal(charges.error.data.type, "upstream-error");
      assert.equal(charges.error.data.category, "upstream");
      assert.match(charges.error.data.correlation_id, /^[0-9a-f-]{36}$/);

      const orders = await outcome(guarded.client.readResource({ uri: "ledger://orders" }));
      assert.equal(orders.error.code, -32603);
      assert.match(orders.error.message, /cannot open postgres:\/\/\[REDACTED:url-credentials\]@db\.internal/);
      assert.deepEqual(leaked(guarded.seen), []);
      const sanitized = guarded.events.filter((e) => e.event === "sanitized");
      assert.deepEqual(sanitized.map((e) => [e.kind, e.code, e.method]), [["upstream-error", -32019, "resources/read"], ["upstream-error", -32603, "resources/read"]]);
      // The operator's log keeps what happened (the stack, the path), never the credentials.
      assert.match(sanitized[0].detail, /upstream error -32010: MCP error -32010: ledger declined/);
      assert.ok(!/hunter2|sk_live_51/.test(JSON.stringify(guarded.events)));
    } finally {
      await direct.client.close();
      await guarded.client.close();
    }
  });

  test("the server dying mid-request: the pending call is answered at once, before the transport reports its close", async () => {
    const direct = await connect({ guarded: false });
    const guarded = await connect({ guarded: true });
    try {
      const sdkOwn = await outcome(direct.client.callTool({ name: "crash" }));
      assert.deepEqual([sdkOwn.error.code, sdkOwn.error.message], [-32000, "MCP error -32000: Connection closed"]); // the SDK's own
      const order = [];
      const { transport } = guarded;
      const [deliver, onclose] = [transport.onmessage, transport.onclose];
      transport.onmessage = (message, extra) => {
        order.push(`message ${message.id}`);
        deliver(message, extra);
      };
      transport.onclose = () => {
        order.push("closed");
        onclose?.();
      };
      const started = performance.now();
      const answer = await outcome(guarded.client.callTool({ name: "crash" }));
      assert.ok(performance.now() - started < 1000);
      // The guard's answer, not the SDK's "Connection closed": it came through onmessage before onclose.
      assert.deepEqual(order.slice(-2), [`message ${guarded.seen.at(-1).id}`, "closed"]);
      assert.deepEqual(answer.error, {
        code: -32000,
        message: "MCP error -32000: Upstream connection failed",
        data: { ...answer.error.data, type: "upstream-connection-failed", category: "upstream", retryable: true, details: "upstream" },
      });
      assert.ok(guarded.seen.some((m) => m.error?.data?.type === "upstream-connection-failed"));
      assert.deepEqual(
        guarded.events.filter((e) => e.level === "error").map((e) => e.event),
        ["upstream-ended", "answered"],
      );
      assert.equal(guarded.transport.closed, true);
      // A request after that (a proxy still relaying its client) is answered too, not thrown at.
      await guarded.transport.send({ jsonrpc: "2.0", id: 99, method: "ping" });
      assert.deepEqual([guarded.seen.at(-1).id, guarded.seen.at(-1).error.data.type], [99, "upstream-connection-failed"]);
    } finally {
      await direct.client.close();
      await guarded.client.close();
    }
  });

  test("a request that waits past timeoutMs is answered upstream-timeout and cancelled upstream; the late answer never arrives", async () => {
    const aborted = [];
    const guarded = await connect({ guarded: true, hooks: { aborted: (ms) => aborted.push(ms) }, options: { timeoutMs: 150 } });
    try {
      const started = performance.now();
      const answer = await outcome(guarded.client.callTool({ name: "sleep", arguments: { ms: 1500 } }));
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 150 && elapsed < 1000, `${elapsed} ms`);
      assert.equal(answer.error.code, -32001);
      assert.equal(answer.error.data.type, "upstream-timeout");
      assert.deepEqual(aborted, [1500]); // the server saw notifications/cancelled and stopped
      // The session goes on.
      assert.equal((await guarded.client.callTool({ name: "echo", arguments: { text: "still here" } })).content[0].text, "still here");
      assert.deepEqual(guarded.transportErrors, []);
      assert.equal(guarded.transport.pending, 0);
    } finally {
      await guarded.client.close();
    }
  });

  test("concurrent calls answered out of order: each once, to the right caller", async () => {
    const guarded = await connect({ guarded: true });
    try {
      const delays = Array.from({ length: 40 }, (_, i) => (i * 7) % 23);
      const results = await Promise.all(delays.map((ms, i) => guarded.client.callTool({ name: i % 2 ? "sleep" : "echo", arguments: i % 2 ? { ms } : { text: `call ${i}` } })));
      assert.deepEqual(results.map((r) => r.content[0].text), delays.map((_, i) => (i % 2 ? "slept" : `call ${i}`)));
      assert.equal(guarded.seen.filter((m) => "result" in m || "error" in m).length, 40); // seen from after initialize
      assert.equal(guarded.transport.pending, 0);
      assert.deepEqual(guarded.transportErrors, []);
    } finally {
      await guarded.client.close();
    }
  });

  test("progress notifications restart the wait: a long call that reports progress is not timed out", async () => {
    const guarded = await connect({ guarded: true, options: { timeoutMs: 150 } });
    try {
      const args = { steps: 4, delay_ms: 90 }; // 360 ms in all, never 150 ms without news
      const progress = [];
      const reported = await outcome(guarded.client.callTool({ name: "count", arguments: args }, undefined, { onprogress: (p) => progress.push(p.progress) }));
      assert.equal(reported.result?.content[0].text, "counted 4", JSON.stringify(reported));
      assert.deepEqual(progress, [1, 2, 3, 4]);
      // The same call without a progress token (no onprogress) gets no progress and times out.
      const silent = await outcome(guarded.client.callTool({ name: "count", arguments: args }));
      assert.equal(silent.error?.data?.type, "upstream-timeout");
    } finally {
      await guarded.client.close();
    }
  });

  test("a request the client cancels is owed nothing: the cancellation goes upstream, the late answer is dropped", async () => {
    const aborted = [];
    const guarded = await connect({ guarded: true, hooks: { aborted: (ms) => aborted.push(ms) } });
    try {
      const controller = new AbortController();
      const call = outcome(guarded.client.callTool({ name: "sleep", arguments: { ms: 300 } }, undefined, { signal: controller.signal }));
      await new Promise((resolve) => setTimeout(resolve, 30));
      controller.abort("changed my mind");
      assert.equal((await call).error.code, -32001); // the SDK's own rejection of an aborted request
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(aborted, [300]);
      assert.deepEqual(guarded.events.map((e) => e.event), ["client-cancelled"]);
      assert.equal(guarded.transport.pending, 0);
      assert.deepEqual(guarded.transportErrors, []);
    } finally {
      await guarded.client.close();
    }
  });
});

/** An inner transport that records what it is given and lets the test speak for the upstream. */
class ScriptedUpstream {
  sent = [];
  started = false;
  closed = false;
  protocolVersions = [];
  sessionId = "session-7";
  startError = undefined;
  async start() {
    if (this.startError) throw this.startError;
    this.started = true;
  }
  async send(message, options) {
    this.sent.push({ message, options });
  }
  async close() {
    this.closed = true;
    this.onclose?.();
  }
  setProtocolVersion(version) {
    this.protocolVersions.push(version);
  }
}

/** A line transport (a process's stdio, say) that records the lines it is given. */
class ScriptedLines {
  sent = [];
  async start() {}
  async sendLine(line) {
    this.sent.push(line);
  }
  async close() {
    this.onclose?.({ exited: 0 });
  }
}

const bytes = (line) => new TextEncoder().encode(line);
const text = (line) => (typeof line === "string" ? line : new TextDecoder().decode(line));

function wire(transport) {
  const got = [];
  transport.onmessage = (message, extra) => got.push({ message, extra });
  return got;
}

describe("the adapter's contract", () => {
  test("a forwarded message is the same object with the same send options; upstream messages keep their extra info", async () => {
    const inner = new ScriptedUpstream();
    const t = new GuardedTransport(inner);
    const got = wire(t);
    await t.start();
    assert.equal(inner.started, true);
    const request = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } };
    const options = { relatedRequestId: 4, resumptionToken: "r-1" };
    await t.send(request, options);
    assert.equal(inner.sent[0].message, request);
    assert.equal(inner.sent[0].options, options);
    assert.equal(t.pending, 1);
    const response = { jsonrpc: "2.0", id: 1, result: { content: [] } };
    const extra = { authInfo: { token: "t", clientId: "c", scopes: [] } };
    inner.onmessage(response, extra);
    assert.equal(got[0].message, response);
    assert.equal(got[0].extra, extra);
    assert.equal(t.pending, 0);
    // The SDK's optional members are delegated.
    assert.equal(t.sessionId, "session-7");
    t.setProtocolVersion("2025-11-25");
    assert.deepEqual(inner.protocolVersions, ["2025-11-25"]);
    assert.equal(new GuardedTransport({ async start() {}, async send() {}, async close() {} }).setProtocolVersion, undefined);
    await t.close();
  });

  test("a lone surrogate: a message's reaches the guard escaped by JSON.stringify, a raw line's is refused as not Unicode", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner, { timeoutMs: 0 });
    const got = wire(t);
    await t.start();
    // Sent as a message: judged as its JSON text, in which JSON.stringify wrote the surrogate as an escape.
    const request = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { q: "a\uD800b" } } };
    await t.send(request);
    const s = new GuardSession({ timeoutMs: null });
    const reference = s.clientLine(JSON.stringify(request));
    s.close();
    const forwarded = reference.steps.some((x) => x.step === "forward");
    assert.equal(inner.sent.length, forwarded ? 1 : 0);
    assert.deepEqual(
      got.map(({ message }) => message),
      reference.steps.filter((x) => x.step === "send").map((x) => JSON.parse(x.line)),
    );
    // Given as a raw line (text with the surrogate itself), refused as GuardSession refuses it, at its offset.
    await assert.rejects(t.sendLine('{"jsonrpc":"2.0","id":2,"method":"\uDC00"}'), (e) => e.error?.data?.reason === "not-unicode" && e.error.data.details.endsWith("(at offset 34)"));
    assert.equal(inner.sent.length, forwarded ? 1 : 0);
    await t.close();
  });

  test("raw client lines are judged as the CLI judges them: not JSON, a batch, a member given twice, an id in flight", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner, { timeoutMs: 0 });
    const got = wire(t);
    await t.start();
    await t.sendLine("{nope");
    await t.sendLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
    await t.sendLine('{"jsonrpc":"2.0","id":2,"method":"ping","method":"tools/list"}');
    await t.sendLine(new TextEncoder().encode('{"jsonrpc":"2.0","id":3,"method":"ping","stray":true}'));
    await t.send({ jsonrpc: "2.0", id: 3, method: "ping" });
    await t.sendOversize(20_000_000);
    const answers = got.map(({ message }) => [message.id, message.error.code, message.error.data.reason ?? message.error.data.type]);
    assert.deepEqual(answers, [
      [null, -32700, "parse-error"],
      [null, -32600, "batch-not-supported"],
      [null, -32600, "duplicate-member"],
      [3, -32600, "duplicate-id"],
      [null, -32600, "oversize"],
    ]);
    // Only the line with a stray member went on, parsed from its own bytes.
    assert.deepEqual(inner.sent.map((s) => s.message), [{ jsonrpc: "2.0", id: 3, method: "ping", stray: true }]);
    // The session's verdicts, compared with a GuardSession given the same lines.
    const s = new GuardSession({ timeoutMs: null });
    const reference = ["{nope", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]'].map((l) => JSON.parse(s.clientLine(l).steps.find((x) => x.step === "send").line));
    s.close();
    assert.deepEqual(got.slice(0, 2).map((g) => g.message.error.data.details), reference.map((r) => r.error.data.details));
    await t.close();
  });

  test("the upstream's requests and the client's answers to them pass through; garbage from the guard's view is dropped", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner);
    const got = wire(t);
    const events = [];
    t.onclose = () => events.push("closed");
    await t.start();
    const sampling = { jsonrpc: "2.0", id: "s-1", method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } };
    inner.onmessage(sampling);
    assert.equal(got[0].message, sampling);
    const reply = { jsonrpc: "2.0", id: "s-1", result: { role: "assistant", content: { type: "text", text: "hi" }, model: "m" } };
    await t.send(reply);
    assert.equal(inner.sent[0].message, reply);
    // An answer to nothing pending is not relayed.
    inner.onmessage({ jsonrpc: "2.0", id: 77, result: {} });
    assert.equal(got.length, 1);
    await t.close();
    assert.deepEqual(events, ["closed"]);
  });

  test("an upstream that cannot start: the request after it is answered by the guard", async () => {
    const inner = new ScriptedUpstream();
    inner.startError = Object.assign(new Error("spawn nope ENOENT"), { code: "ENOENT" });
    const events = [];
    const t = guardTransport(inner, { upstream: "stdio:nope", onEvent: (e) => events.push(e) });
    const got = wire(t);
    await assert.rejects(t.start(), /ENOENT/);
    await t.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.deepEqual(inner.sent, []);
    assert.equal(got[0].message.error.code, -32000);
    assert.equal(got[0].message.error.data.details, "stdio:nope");
    assert.match(events.find((e) => e.event === "upstream-ended").detail, /could not be started: spawn nope ENOENT/);
    await t.close();
  });

  test("close answers what is pending, then onclose; the deadline timer does not outlive the transport", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner, { timeoutMs: 60_000 });
    const order = [];
    t.onmessage = (m) => order.push(`answer ${m.id} ${m.error.code}`);
    t.onclose = () => order.push("close");
    await t.start();
    await t.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "slow" } });
    await t.close();
    await t.close();
    assert.deepEqual(order, ["answer 5 -32000", "close"]);
    assert.equal(inner.closed, true);
    // Nothing keeps the event loop alive (the 60 s deadline's timer is gone): node:test would wait otherwise.
  });

  test("the upstream's last stderr after close still goes on with a key block an earlier chunk left open", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner);
    await t.start();
    const body = Array.from({ length: 6 }, (_, i) => `MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0g${i}${i}`);
    // Bytes as a pipe gave them: the last read before the close ends inside a body line.
    const stream = new TextEncoder().encode(`dumping key\n-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----\nexiting`);
    const cut = stream.indexOf(0x0a, 60) + 20;
    const before = t.upstreamStderr(stream.subarray(0, cut));
    await inner.close(); // the process died mid-dump; its last words come after the transport closed
    const after = t.upstreamStderr(stream.subarray(cut)) + t.upstreamStderrEnd();
    assert.equal(before, "dumping key\n[REDACTED:pem-private-key]\n");
    assert.equal(after, "exiting", "the block has its one replacement already; nothing of its body is logged");
  });

  test("defaults are the CLI's: dialect canonical, a 50 s timeout; bad options are refused up front", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner);
    assert.equal(t.settings.timeout_ms, 50_000);
    assert.equal(t.settings.dialect, "canonical");
    const events = [];
    t.onmessage = (m) => events.push(m);
    const before = Date.now();
    await t.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    inner.onmessage({ jsonrpc: "2.0", id: 1, error: { code: -32010, message: "custom" } });
    assert.equal(events[0].error.code, -32019); // canonical's upstream-error
    await t.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    assert.equal(t.pending, 1);
    await t.close();
    assert.ok(Date.now() - before < 1000);
    assert.throws(() => guardTransport(inner, { dialect: "klingon" }), /unknown-dialect|dialect/);
    assert.throws(() => guardTransport({}, {}), /Transport/);
    assert.throws(() => guardTransport(inner, { onEvent: 3 }), /onEvent/);
  });

  test("the session resolves every limit: given, else the policy file's, else the default; 0 or null is no limit", () => {
    const file = "[defaults]\ntimeout = 7\nmax_bytes = 4096\nmax_upstream_bytes = 8192\nfailed_result_bytes = 300\n";
    const settings = (options) => guardTransport(new ScriptedUpstream(), options).settings;
    assert.deepEqual(settings({ policy: file, timeoutMs: 3000, maxBytes: 100, failedResultBytes: 500 }),
      { dialect: "canonical", max_bytes: 100, batch: "reject", timeout_ms: 3000, failed_result_bytes: 500, max_upstream_bytes: 8192 });
    assert.deepEqual(settings({ policy: file }),
      { dialect: "canonical", max_bytes: 4096, batch: "reject", timeout_ms: 7000, failed_result_bytes: 300, max_upstream_bytes: 8192 });
    const defaults = settings({});
    assert.equal(defaults.timeout_ms, 50_000);
    assert.equal(defaults.max_bytes, 10 * 1024 * 1024);
    assert.equal(defaults.failed_result_bytes, 8192);
    assert.equal(settings({ policy: file, timeoutMs: null }).timeout_ms, null);
    assert.equal(settings({ policy: file, timeoutMs: 0 }).timeout_ms, null);
    assert.equal(settings({ policy: "[defaults]\ntimeout = 0\n" }).timeout_ms, null);
  });

  test("an onEvent callback that throws costs nothing: the answer after the event is still delivered", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner, { onEvent: () => {
      throw new Error("log sink down");
    } });
    const errors = [];
    t.onerror = (e) => errors.push(e.message);
    const got = wire(t);
    await t.sendLine("{nope");
    assert.equal(got[0].message.error.code, -32700);
    assert.deepEqual(errors, ["log sink down"]);
    await t.close();
  });

  test("between line transports ids and numbers keep their bytes: beyond 2^53, 1E2, escapes; 1.5 is refused", async () => {
    const inner = new ScriptedLines();
    const t = guardTransport(inner, { timeoutMs: 0 });
    const toClient = [];
    t.onrawline = (line) => toClient.push(text(line));
    await t.start();
    const requests = [
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"tools/call","params":{"name":"x","arguments":{"n":123456789012345678901234567890,"f":1.50}}}',
      '{"jsonrpc":"2.0","id":1E2,"method":"ping"}',
      '{"jsonrpc":"2.0","id":"\\u00e9","method":"ping"}',
    ];
    for (const line of requests) await t.sendLine(bytes(line));
    assert.deepEqual(inner.sent.map(text), requests, "forwarded as the client wrote them");
    assert.equal(t.pending, 3);
    // A fractional id is no MCP id (no SDK can carry one): the session answers it at once, id null, in every
    // runtime alike (the Python proxy left it unanswered).
    await t.sendLine(bytes('{"jsonrpc":"2.0","id":1.5,"method":"ping"}'));
    assert.equal(inner.sent.length, 3);
    const refused = JSON.parse(toClient.pop());
    assert.deepEqual([refused.id, refused.error.code, refused.error.data.reason], [null, -32600, "fractional-id"]);
    // Answers in the upstream's own spelling (a Python server writes 100.0 for 1E2), relayed as written.
    const answers = [
      '{"jsonrpc":"2.0","id":12345678901234567890,"result":{"content":[{"type":"text","text":"123456789012345678901234567890"}]}}',
      '{"jsonrpc":"2.0","id":100.0,"result":{}}',
      '{"jsonrpc":"2.0","id":"é","result":{}}',
    ];
    for (const line of answers) inner.onrawline(bytes(line));
    assert.deepEqual(toClient, answers);
    assert.equal(t.pending, 0);
    // An answer under the rounded id (what a parse would have made of it) belongs to nothing.
    inner.onrawline(bytes('{"jsonrpc":"2.0","id":12345678901234567000,"result":{}}'));
    assert.equal(toClient.length, 3);
    // A message the client side gives parsed goes upstream as the JSON text the guard judged.
    await t.send({ jsonrpc: "2.0", id: 7, method: "ping" });
    assert.equal(text(inner.sent.at(-1)), '{"jsonrpc":"2.0","id":7,"method":"ping"}');
    await t.close();
  });

  test("over an SDK transport (parsed messages) a line whose id no double holds is still answered once, with its own id", async () => {
    // The limit: an SDK transport takes objects, so the line's parse goes upstream (id 9007199254740992),
    // and the upstream's answer to that is no answer to the request the guard holds. The timeout answers it.
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner, { timeoutMs: 100 });
    const toClient = [];
    t.onrawline = (line) => toClient.push(text(line));
    await t.start();
    await t.sendLine('{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"x"}}');
    assert.equal(inner.sent[0].message.id, 9007199254740992);
    inner.onmessage({ jsonrpc: "2.0", id: 9007199254740992, result: {} });
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(toClient.length, 1, toClient.join("\n"));
    assert.match(toClient[0], /"id":9007199254740993\}$/);
    assert.equal(JSON.parse(toClient[0]).error.data.type, "upstream-timeout");
    await t.close();
  });

  test("a line longer than the guard module takes is answered as oversize, from either side", async () => {
    const inner = new ScriptedLines();
    const events = [];
    const t = guardTransport(inner, { onEvent: (e) => events.push(e) });
    const toClient = [];
    t.onrawline = (line) => toClient.push(JSON.parse(text(line)));
    await t.start();
    const huge = new Uint8Array(64 * 1024 * 1024 + 1).fill(0x20);
    await t.sendLine(huge);
    assert.deepEqual([toClient[0].id, toClient[0].error.code, toClient[0].error.data.reason], [null, -32600, "oversize"]);
    inner.onoversize(70_000_000);
    inner.onrawline(huge);
    assert.deepEqual(events.filter((e) => e.event === "dropped").map((e) => e.detail.match(/of (\d+) bytes/)[1]), ["70000000", String(huge.length)]);
    assert.deepEqual(inner.sent, []);
    await t.close();
  });

  test("after the upstream closed, send answers every request and never throws, also once the session is freed", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const inner = new ScriptedUpstream();
    const guarded = guardTransport(inner, { upstream: "stdio:gone" });
    const got = wire(guarded);
    await guarded.start();
    await inner.close();
    await guarded.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await guarded.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    t.mock.timers.tick(5_000); // the session is freed; a session of its own answers from now on
    await guarded.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await guarded.sendLine('{"jsonrpc":"2.0","id":3,"method":"ping"}');
    const answers = got.map(({ message }) => [message.id, message.error.code, message.error.data.type, message.error.data.details]);
    assert.deepEqual(answers, [1, 2, 3].map((id) => [id, -32000, "upstream-connection-failed", "stdio:gone"]));
    assert.deepEqual(inner.sent, []);
  });

  test("an SDK transport whose write fails (the server is gone): every pending request answered at once, later ones too", async () => {
    const inner = new ScriptedUpstream();
    inner.send = async function (message) {
      this.sent.push({ message });
      if (message.id === 2) throw new TypeError("fetch failed");
    };
    const t = guardTransport(inner, { upstream: "http://127.0.0.1:9/mcp" });
    const got = wire(t);
    const errors = [];
    t.onerror = (e) => errors.push(e.message);
    const closed = new Promise((resolve) => (t.onclose = resolve));
    await t.start();
    const started = performance.now();
    await t.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } });
    await t.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x" } }); // no throw
    await closed;
    assert.ok(performance.now() - started < 2000);
    await t.send({ jsonrpc: "2.0", id: 3, method: "ping" });
    assert.deepEqual(got.map(({ message }) => [message.id, message.error.data.type]), [1, 2, 3].map((id) => [id, "upstream-connection-failed"]));
    assert.deepEqual(errors, ["fetch failed"]);
    assert.equal(inner.closed, true);
  });

  test("an SDK transport that reports a broken connection ends the upstream; one that could not parse a message does not", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const inner = new ScriptedUpstream();
    const guarded = guardTransport(inner);
    const got = wire(guarded);
    let closed = false;
    guarded.onclose = () => (closed = true);
    await guarded.start();
    await guarded.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } });
    inner.onerror(new SyntaxError(`Unexpected token 'D', "DEBUG: ent"... is not valid JSON`)); // a stray print
    inner.onerror(Object.assign(new Error("[{ invalid_union }]"), { name: "ZodError" }));
    t.mock.timers.tick(1_000);
    assert.deepEqual([got.length, closed], [0, false]);
    inner.onerror(new Error("SSE stream disconnected: TypeError: terminated"));
    t.mock.timers.tick(500);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(got.map(({ message }) => [message.id, message.error.data.type]), [[1, "upstream-connection-failed"]]);
    assert.equal(closed, true);
  });

  test("a trap of the guard module ends the transport: reported to onerror, inner closed, onclose called", async () => {
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner);
    const errors = [];
    let closed = false;
    t.onerror = (e) => errors.push(e.name);
    t.onclose = () => (closed = true);
    await t.start();
    assert.throws(trapGuardForTests);
    await t.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(errors, ["WasmFaultError"]);
    assert.equal(inner.closed, true);
    assert.equal(closed, true);
    assert.deepEqual(inner.sent, []);
  });
});

describe("the upstream's environment given to the adapter", () => {
  test("its secret-looking values are redacted from a failed result; without it a value no rule knows passes", async () => {
    // An internal service's key, handed to the server in its env: only a session given that env can tell.
    const secret = "zq-upstream-7c1f9e2b40";
    async function failThrough(options) {
      const inner = new ScriptedUpstream();
      const t = guardTransport(inner, { dialect: "mcp", ...options });
      const got = wire(t);
      await t.start();
      await t.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "charge", arguments: {} } });
      inner.onmessage({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: `auth failed with ${secret}` }], isError: true } });
      await t.close();
      return got[0].message.result.content[0].text;
    }
    assert.ok((await failThrough({})).includes(secret), "else this test proves nothing");
    const guarded = await failThrough({ environment: { BILLING_API_KEY: secret } });
    assert.ok(!guarded.includes(secret) && guarded.startsWith("auth failed with "), guarded);
  });
});

describe("a policy file given to the adapter", () => {
  // A file a tool reads, with secrets of the shapes the catalogue knows (made up for these tests).
  const DOTENV =
    "APP_NAME=orders\n" +
    "DATABASE_URL=postgres://orders:T4k-9vW2-qLm@db.staging.internal:5432/orders\n" +
    "GITHUB_TOKEN=ghp_Vb7kQ2mZx9LpR4tN8wYc3HdF6sJ1uA5eK0gT\n" +
    "LOG_LEVEL=debug\n";
  const RESULTS_SCOPE = '[redaction]\nscopes = ["errors", "results"]\n';
  const call = (id, name = "read_text_file") => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { path: "/srv/orders/.env" } } });
  const answer = (id) => ({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: DOTENV }], isError: false } });

  /** One tools/call through a transport with `options`, answered with DOTENV: what the client got, and the events. */
  async function readThrough(options, dialect = "mcp") {
    const inner = new ScriptedUpstream();
    const events = [];
    const t = guardTransport(inner, { dialect, onEvent: (e) => events.push(e), ...options });
    const got = wire(t);
    await t.start();
    await t.send(call(1));
    inner.onmessage(answer(1));
    await t.close();
    return { message: got[0].message, events };
  }

  test("the results scope redacts a successful result; without it (or without a policy) it passes as it is", async () => {
    const plain = await readThrough({});
    assert.equal(plain.message.result.content[0].text, DOTENV);
    const defaults = await readThrough({ policy: "[defaults]\ntimeout = 30\n" });
    assert.deepEqual(defaults.message, plain.message);
    assert.deepEqual(defaults.events.filter((e) => e.event !== "upstream-ended"), []);
    const { message, events } = await readThrough({ policy: RESULTS_SCOPE });
    assert.equal(
      message.result.content[0].text,
      DOTENV.replace("orders:T4k-9vW2-qLm", "[REDACTED:url-credentials]").replace("ghp_Vb7kQ2mZx9LpR4tN8wYc3HdF6sJ1uA5eK0gT", "[REDACTED:github-token]"),
    );
    const redacted = events.find((e) => e.event === "redacted");
    // A tool the upstream did not list is labelled `other` (a metrics label), its name in the detail.
    assert.deepEqual([redacted.rule, redacted.tool], ["url-credentials,github-token", "other"]);
    assert.match(redacted.detail, /\(tool read_text_file\)/);
    assert.ok(!JSON.stringify(events).includes("T4k-9vW2") && !JSON.stringify(events).includes("ghp_Vb7k"));
  });

  test("a block answers with the policy's error (isError in mcp, policy-denied in canonical); audit passes untouched", async () => {
    const block = `${RESULTS_SCOPE}[actions]\ngithub-token = "block"\n`;
    const mcp = await readThrough({ policy: block });
    assert.deepEqual(mcp.message, { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "Policy denied access to tool 'read_text_file'" }], isError: true } });
    const blocked = mcp.events.find((e) => e.event === "blocked");
    assert.deepEqual([blocked.rule, blocked.tool], ["github-token", "other"]);
    assert.match(blocked.detail, /\(tool read_text_file\)/);
    const canonical = await readThrough({ policy: block }, "canonical");
    assert.equal(canonical.message.error.data.type, "policy-denied");
    const audit = '[redaction]\nscopes = ["errors", "results"]\ndisable = ["url-credentials"]\n[actions]\ngithub-token = "audit"\n';
    const audited = await readThrough({ policy: audit });
    assert.equal(audited.message.result.content[0].text, DOTENV);
    assert.deepEqual(audited.events.filter((e) => e.event === "audited").map((e) => [e.rule, e.tool]), [["github-token", "other"]]);
  });

  test("a refused document throws at construction with line and column; setPolicy reloads and a refused reload keeps the old", async () => {
    assert.throws(
      () => guardTransport(new ScriptedUpstream(), { policy: '[redaction]\nscopes = ["errors", "resluts"]\n' }),
      (e) => e.name === "InvalidInputError" && e.error.data.line === 2 && e.error.data.column === 21 && /resluts/.test(e.error.data.details),
    );
    assert.throws(() => guardTransport(new ScriptedUpstream(), { policy: 7 }), /policy must be a string/);
    const inner = new ScriptedUpstream();
    const t = guardTransport(inner, { dialect: "mcp" });
    const got = wire(t);
    await t.start();
    await t.send(call(1));
    inner.onmessage(answer(1));
    t.setPolicy(RESULTS_SCOPE);
    await t.send(call(2));
    inner.onmessage(answer(2));
    assert.throws(() => t.setPolicy('[actions]\ngithub-token = "explode"\n'), (e) => e.error.data.line === 2 && e.error.data.column === 16);
    await t.send(call(3));
    inner.onmessage(answer(3));
    await t.close();
    assert.equal(got[0].message.result.content[0].text, DOTENV);
    assert.match(got[1].message.result.content[0].text, /\[REDACTED:github-token\]/);
    assert.deepEqual(got[2].message.result, got[1].message.result);
  });

  test("the file's [defaults] and per-tool timeouts apply; the caller's own options win", async () => {
    const policy = '[defaults]\ndialect = "mcp"\ntimeout = 0.3\n\n[[tool]]\nmatch = "slow_*"\ntimeout = 0.1\n';
    async function timedOut(name, options) {
      const inner = new ScriptedUpstream();
      const t = guardTransport(inner, { policy, ...options });
      const got = wire(t);
      await t.start();
      const started = Date.now();
      await t.send(call(9, name));
      while (got.length === 0 && Date.now() - started < 3000) await new Promise((resolve) => setTimeout(resolve, 5));
      const elapsed = Date.now() - started;
      await t.close();
      return { message: got[0].message, elapsed };
    }
    const file = await timedOut("read_text_file", {});
    assert.ok(file.elapsed >= 290 && file.elapsed < 600, `${file.elapsed} ms`);
    assert.equal(file.message.result.isError, true); // the file's dialect: mcp
    const tool = await timedOut("slow_export", {});
    assert.ok(tool.elapsed >= 95 && tool.elapsed < 280, `${tool.elapsed} ms`);
    const own = await timedOut("read_text_file", { timeoutMs: 150, dialect: "canonical" });
    assert.ok(own.elapsed >= 145 && own.elapsed < 280, `${own.elapsed} ms`);
    assert.equal(own.message.error.data.type, "upstream-timeout");
  });
});
