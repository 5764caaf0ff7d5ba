// jsonrpc-errors/mcp's GuardedTransport around the SDK's StreamableHTTPClientTransport, in front of a real
// Streamable HTTP server process (the SDK's own, test/mcp-fixture/http-server.mjs) on loopback that dies
// mid-call: every pending request gets exactly one answer, at once, as over stdio; nothing throws.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { guardTransport } from "jsonrpc-errors/mcp";
import { REPO_ROOT } from "./helpers.mjs";
import { outcome } from "./mcp-helpers.mjs";

const SERVER = join(REPO_ROOT, "bindings", "js", "test", "mcp-fixture", "http-server.mjs");

/** The server process, its URL, and its stdout's next line. */
async function startServer(args) {
  const child = spawn(process.execPath, [SERVER, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const port = Number((await lines.next()).value);
  assert.ok(port > 0, "the server did not say its port");
  const exited = new Promise((resolve) => child.on("exit", resolve));
  return { child, exited, url: new URL(`http://127.0.0.1:${port}/mcp`), nextLine: async () => (await lines.next()).value };
}

/** `promise`'s value, or `fallback` after `ms`. */
function within(promise, ms, fallback) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const connectionFailed = (id) => ({ id, code: -32000, type: "upstream-connection-failed", details: "http:test" });
const answerOf = (m) => ({ id: m.id, code: m.error?.code, type: m.error?.data?.type, details: m.error?.data?.details });

for (const mode of ["sse", "json"]) {
  test(`Streamable HTTP (${mode} responses): a server killed mid-call; the call answered at once, later ones too`, { timeout: 30_000 }, async (t) => {
    const server = await startServer(mode === "json" ? ["--json"] : []);
    const transport = guardTransport(new StreamableHTTPClientTransport(server.url), { upstream: "http:test", timeoutMs: 20_000 });
    const client = new Client({ name: "http-test", version: "1.0.0" });
    const transportErrors = [];
    client.onerror = (e) => transportErrors.push(String(e));
    const closed = new Promise((resolve) => (client.onclose = resolve));
    try {
      await client.connect(transport);
      assert.equal((await client.callTool({ name: "echo", arguments: { text: "over http" } })).content[0].text, "over http");
      // Before: the SSE case waited for the timeout; the JSON case threw the raw `TypeError: fetch failed`.
      const call = outcome(client.callTool({ name: "sleep", arguments: { ms: 25_000 } }, undefined, { timeout: 25_000 }));
      assert.equal(await server.nextLine(), "sleeping");
      const killed = performance.now();
      server.child.kill("SIGKILL");
      const answer = await within(call, 5_000, { error: { timedOut: true } });
      const ms = performance.now() - killed;
      assert.deepEqual(answer.error, { code: -32000, message: "MCP error -32000: Upstream connection failed", data: { ...answer.error.data, type: "upstream-connection-failed", details: "http:test" } });
      assert.ok(ms < 3_000, `answered ${ms} ms after the kill`);
      t.diagnostic(`answered ${Math.round(ms)} ms after the kill`);
      // The client learns that the connection is gone, as it does over stdio.
      assert.equal(await within(closed, 2_000, "still open"), undefined);
      // A proxy relaying more: answered by the guard, never thrown at.
      const relayed = [];
      transport.onmessage = (message) => relayed.push(message);
      await transport.send({ jsonrpc: "2.0", id: 99, method: "tools/list" });
      assert.deepEqual(relayed.map(answerOf), [connectionFailed(99)]);
      assert.equal(transport.pending, 0);
    } finally {
      server.child.kill("SIGKILL");
      await server.exited;
      await client.close();
    }
  });
}

test("Streamable HTTP: a server gone between calls; the next request is answered, not a raw fetch error", { timeout: 30_000 }, async () => {
  const server = await startServer(["--json"]);
  const inner = new StreamableHTTPClientTransport(server.url);
  const transport = guardTransport(inner, { upstream: "http:test", timeoutMs: 20_000 });
  const client = new Client({ name: "http-test", version: "1.0.0" });
  client.onerror = () => {};
  try {
    await client.connect(transport);
    server.child.kill("SIGKILL");
    await server.exited;
    // Straight to the transport, as a proxy relays: the send reaches a closed port (ECONNREFUSED).
    const got = [];
    transport.onmessage = (message) => got.push(message);
    const started = performance.now();
    await transport.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text: "anyone?" } } });
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(got.map(answerOf), [connectionFailed(7)]);
    assert.ok(performance.now() - started < 3_000);
  } finally {
    await client.close();
  }
});
