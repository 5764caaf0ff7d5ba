// jsonrpc-errors/mcp's tool helpers: a tool that throws answers with the canonical tool error (what the guard
// answers when a server replies to a tools/call with the JSON-RPC error built from the exception), the
// exception goes to onError only, and a tool that does not throw is untouched.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { GuardSession } from "jsonrpc-errors/guard";
import { canonicalToolError, guardTool, guardTools } from "jsonrpc-errors/mcp";
import { DB_URL, GITHUB_TOKEN, HOME_PATH, innerStack, SECRETS } from "./mcp-fixture/server.js";

const failure = () => new Error(`query failed (GITHUB_TOKEN=${GITHUB_TOKEN}, db=${DB_URL}, source ${HOME_PATH}):\n${innerStack()}`);

/** The guard's answer, worked out here from the definition: a session given the tools/call and the error reply. */
function guardsAnswer(tool, error, dialect) {
  const s = new GuardSession({ dialect, timeoutMs: null });
  s.clientLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool } }));
  const reply = { jsonrpc: "2.0", id: 1, error: { code: -32603, message: `${error.name}: ${error.message}`, data: { stack: error.stack } } };
  const sent = s.upstreamLine(JSON.stringify(reply)).steps.find((step) => step.step === "send");
  s.close();
  const { id: _, jsonrpc: __, ...answer } = JSON.parse(sent.line);
  return answer;
}

async function connected(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(clientSide);
  const wire = [];
  const deliver = clientSide.onmessage;
  clientSide.onmessage = (message, extra) => {
    wire.push(message);
    deliver(message, extra);
  };
  return { client, wire };
}

function leaked(value) {
  const text = JSON.stringify(value);
  return SECRETS.filter((s) => text.includes(s));
}

describe("guardTool on McpServer.registerTool", () => {
  test("a throwing tool: the canonical error's text as the isError result, nothing leaked, onError told", async () => {
    const errors = [];
    const thrown = failure();
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool("query_orders", { inputSchema: { customer: z.string() } }, guardTool(async () => {
      throw thrown;
    }, { name: "query_orders", onError: (error, tool) => errors.push({ error, tool }) }));
    // Without the helper, the SDK sends the exception's message as it is.
    server.registerTool("unguarded", {}, async () => {
      throw failure();
    });
    const { client, wire } = await connected(server);
    try {
      const raw = await client.callTool({ name: "unguarded" });
      assert.ok(leaked(raw).length >= 4, "the SDK leaks without the helper");
      const result = await client.callTool({ name: "query_orders", arguments: { customer: "acme" } });
      const expected = guardsAnswer("query_orders", thrown, "mcp");
      // The guard answers -32603 with the message scrubbed; McpServer makes a thrown McpError an isError result.
      assert.equal(expected.error.code, -32603);
      assert.deepEqual(result, { content: [{ type: "text", text: expected.error.message }], isError: true });
      assert.match(result.content[0].text, /^Error: query failed \(GITHUB_TOKEN=\[REDACTED:github-token\], db=postgres:\/\/\[REDACTED:url-credentials\]@db\.internal/);
      assert.deepEqual(leaked(wire.slice(1)), []);
      assert.deepEqual(errors, [{ error: thrown, tool: "query_orders" }]);
    } finally {
      await client.close();
    }
  });

  test("a tool that does not throw is untouched (the same result object)", async () => {
    const result = { content: [{ type: "text", text: "password=hunter2 stays: it is the tool's answer" }], structuredContent: { n: 1 } };
    const handler = guardTool(async () => result, { name: "plain", onError: () => assert.fail("no error") });
    assert.equal(await handler({}, {}), result);
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool("plain", {}, handler);
    const { client } = await connected(server);
    try {
      assert.deepEqual(await client.callTool({ name: "plain" }), result);
    } finally {
      await client.close();
    }
  });

  test("a result the tool itself marks isError is redacted and cut as the guard does an upstream's", async () => {
    const long = `${failure().message}\n${"x".repeat(3000)}`;
    const handler = guardTool(() => ({ content: [{ type: "text", text: long }], isError: true }), { name: "t" });
    const result = await handler();
    assert.equal(result.isError, true);
    assert.deepEqual(leaked(result), []);
    assert.ok(Buffer.byteLength(result.content[0].text) <= 1024);
    assert.match(result.content[0].text, /\[REDACTED:github-token\]/);
  });

  test("guardTools wraps every tool registered afterwards, with its own name", async () => {
    const errors = [];
    const server = guardTools(new McpServer({ name: "s", version: "1" }), { onError: (error, tool) => errors.push([tool, error.message]) });
    server.registerTool("boom", { inputSchema: { n: z.number() } }, async ({ n }) => {
      throw new TypeError(`bad ${n} at ${HOME_PATH}`);
    });
    server.tool("legacy", async () => {
      throw new Error(`token ${GITHUB_TOKEN}`);
    });
    server.registerTool("fine", {}, async () => ({ content: [{ type: "text", text: "fine" }] }));
    const { client } = await connected(server);
    try {
      const boom = await client.callTool({ name: "boom", arguments: { n: 7 } });
      assert.deepEqual(boom, { content: [{ type: "text", text: "TypeError: bad 7 at /home/[REDACTED:home-user]/app/db.js" }], isError: true });
      const legacy = await client.callTool({ name: "legacy" });
      assert.deepEqual(legacy.content[0].text, "Error: token [REDACTED:github-token]");
      assert.deepEqual((await client.callTool({ name: "fine" })).content, [{ type: "text", text: "fine" }]);
      assert.deepEqual(errors, [["boom", `bad 7 at ${HOME_PATH}`], ["legacy", `token ${GITHUB_TOKEN}`]]);
    } finally {
      await client.close();
    }
  });
});

describe("guardTool as a low-level tools/call handler", () => {
  test("the SDK answers with exactly the guard's error object (code, message, data), in any dialect", async () => {
    for (const dialect of ["mcp", "canonical", "watchgate"]) {
      const thrown = failure();
      const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, guardTool(async () => {
        throw thrown;
      }, { name: "query_orders", dialect }));
      const { client, wire } = await connected(server);
      try {
        const expected = guardsAnswer("query_orders", thrown, dialect);
        await assert.rejects(client.callTool({ name: "query_orders" }), (e) => e instanceof McpError && e.code === expected.error.code);
        const { id: _, jsonrpc: __, ...onWire } = wire.at(-1);
        assert.deepEqual(onWire, expected, dialect);
        assert.deepEqual(leaked(onWire), []);
      } finally {
        await client.close();
      }
    }
  });

  test("canonicalToolError: the same name and message give the same answer whatever the stack; a non-Error is named Error", () => {
    const a = new RangeError("limit 5 exceeded for ops@example.com");
    const b = new RangeError("limit 5 exceeded for ops@example.com");
    b.stack = "RangeError: elsewhere\n    at other (/home/bob/x.js:1:1)";
    assert.deepEqual(canonicalToolError("t", a), canonicalToolError("t", b));
    assert.deepEqual(canonicalToolError("t", a).error.message, "RangeError: limit 5 exceeded for [REDACTED:email]");
    assert.deepEqual(canonicalToolError("t", "plain string"), canonicalToolError("t", new Error("plain string")));
  });

  test("a URL elicitation request passes through; wrapping twice changes nothing", async () => {
    const elicit = new McpError(-32042, "URL elicitation required", { elicitations: [{ mode: "url", elicitationId: "e1", url: "https://example.com/auth", message: "sign in" }] });
    const errors = [];
    const handler = guardTool(async () => {
      throw elicit;
    }, { name: "t", onError: (e) => errors.push(e) });
    await assert.rejects(handler(), (e) => e === elicit);
    assert.deepEqual(errors, []);
    assert.equal(guardTool(handler, { name: "t" }), handler);
    const server = new McpServer({ name: "s", version: "1" });
    assert.equal(guardTools(guardTools(server)), server);
    server.registerTool("boom", {}, async () => {
      throw new Error("once");
    });
    const { client } = await connected(server);
    try {
      assert.equal((await client.callTool({ name: "boom" })).content[0].text, "Error: once");
    } finally {
      await client.close();
    }
  });

  test("bad arguments are refused when wrapping, not at the first failure", () => {
    assert.throws(() => guardTool(async () => ({}), {}), /name/);
    assert.throws(() => guardTool("nope", { name: "t" }), /handler/);
    assert.throws(() => guardTool(async () => ({}), { name: "t", dialect: "klingon" }), /dialect/);
    assert.throws(() => guardTools({}), /McpServer/);
  });
});
