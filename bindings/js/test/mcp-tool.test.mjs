// jsonrpc-errors/mcp's tool helpers. The contract: a tool's failure is described as the response the SDK's
// McpServer itself writes for it (an isError result with the error's message; for an McpError asking for a
// URL elicitation, -32042, that error), a throwaway guard session given a tools/call and that response
// decides what the client gets, and the tool helper returns (or throws) exactly that. So a guarded tool keeps
// the SDK's meaning: what the client sees is the unguarded tool's answer, less what the guard redacts. The
// thrown value goes to the operator redacted (secrets gone, traces and paths kept), never raw.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, McpError, UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { GuardSession } from "jsonrpc-errors/guard";
import { FAILED_RESULT_BYTES } from "./mcp-helpers.mjs";
import { canonicalToolError, guardTool, guardTools } from "jsonrpc-errors/mcp";
import { ArgumentTypeError } from "jsonrpc-errors/guard";
import { DB_URL, GITHUB_TOKEN, HOME_PATH, innerStack, SECRETS } from "./mcp-fixture/server.js";

const failure = () => new Error(`query failed (GITHUB_TOKEN=${GITHUB_TOKEN}, db=${DB_URL}, source ${HOME_PATH}):\n${innerStack()}`);
/** Credentials only: what an operator's log must not hold either (paths and traces it keeps). */
const CREDENTIALS = ["ghp_A1b2", "hunter2", "admin:"];
const quiet = { logger: null };

/** What a guard session sends the client for a tools/call of `tool` answered with `response` (id and
 *  jsonrpc left out): the contract's reference, worked out here from its definition. */
function guardsAnswer(tool, response, dialect) {
  const s = new GuardSession({ dialect, timeoutMs: null });
  s.clientLine(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool } }));
  const line = JSON.stringify({ ...response, jsonrpc: "2.0", id: 1 });
  const step = s.upstreamLine(line).steps.find((x) => x.step !== "event" && x.to === "client");
  s.close();
  const { id: _, jsonrpc: __, ...answer } = JSON.parse(step.step === "send" ? step.line : line);
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

/** The response on the wire to the last call, without its id and version. */
function lastResponse(wire) {
  const { id: _, jsonrpc: __, ...response } = wire.at(-1);
  return response;
}

function leaked(value, secrets = SECRETS) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return secrets.filter((s) => text.includes(s));
}

/** An McpServer with `thrower` registered twice, unguarded (`raw`) and guarded (`guarded`). */
async function bothWays(thrower, options = {}) {
  const server = new McpServer({ name: "s", version: "1" });
  server.registerTool("raw", {}, thrower);
  server.registerTool("guarded", {}, guardTool(thrower, { name: "guarded", ...quiet, ...options }));
  const { client, wire } = await connected(server);
  try {
    await client.callTool({ name: "raw" }).catch(() => {});
    const raw = lastResponse(wire);
    const outcome = await client.callTool({ name: "guarded" }).then((result) => ({ result }), (error) => ({ error }));
    return { raw, guarded: lastResponse(wire), outcome };
  } finally {
    await client.close();
  }
}

describe("guardTool on McpServer.registerTool: McpServer's own answer, as the guard rewrites it", () => {
  test("a throwing tool: the unguarded tool's isError result, redacted", async () => {
    const { raw, guarded } = await bothWays(async () => {
      throw failure();
    });
    assert.equal(raw.result.isError, true);
    assert.ok(leaked(raw).length >= 4, "McpServer leaks without the helper");
    assert.deepEqual(guarded, guardsAnswer("guarded", raw, "mcp"));
    assert.match(guarded.result.content[0].text, /^query failed \(GITHUB_TOKEN=\[REDACTED:github-token\], db=postgres:\/\/\[REDACTED:url-credentials\]@db\.internal/);
    assert.deepEqual(leaked(guarded), []);
  });

  test("an McpError's text is McpServer's, once: no second 'MCP error' prefix", async () => {
    // Before: "McpError: MCP error -32602: limit must be at most 50" (and a client's McpError added one more).
    const { raw, guarded } = await bothWays(async () => {
      throw new McpError(-32602, "limit must be at most 50");
    });
    assert.deepEqual(raw, { result: { content: [{ type: "text", text: "MCP error -32602: limit must be at most 50" }], isError: true } });
    assert.deepEqual(guarded, raw, "nothing to redact: exactly the unguarded answer");
  });

  test("a thrown non-Error: McpServer's String(value), as its text", async () => {
    const { raw, guarded } = await bothWays(async () => {
      throw `plain text with password=hunter2`;
    });
    assert.equal(raw.result.content[0].text, "plain text with password=hunter2");
    assert.deepEqual(guarded, guardsAnswer("guarded", raw, "mcp"));
    assert.deepEqual(leaked(guarded), []);
  });

  test("a URL elicitation (-32042) goes through the guard like every failure: nothing of its secrets passes", async () => {
    // Before: any error whose .code was -32042 was thrown on as it came, message and data unredacted.
    const elicitation = { mode: "url", elicitationId: "e-1", url: `https://auth.example.com/start?token=${GITHUB_TOKEN}`, message: `sign in, ${DB_URL}` };
    const { raw, guarded } = await bothWays(async () => {
      throw new UrlElicitationRequiredError([elicitation]);
    });
    assert.equal(raw.error.code, -32042);
    assert.ok(leaked(raw).length >= 2, "the fixture carries secrets");
    assert.deepEqual(guarded, guardsAnswer("guarded", raw, "mcp"));
    assert.deepEqual(leaked(guarded), []);
  });

  test("a URL elicitation (-32042) reaches the client as the elicitation it is: code and data.elicitations kept, values scrubbed", async () => {
    // Needs the guest's keeping MCP's own codes (commit aa46871): before it, the session made -32042 an
    // upstream-error tool result.
    const elicitation = { mode: "url", elicitationId: "e-1", url: `https://auth.example.com/start?token=${GITHUB_TOKEN}`, message: "sign in" };
    const { raw, guarded, outcome } = await bothWays(async () => {
      throw new UrlElicitationRequiredError([elicitation]);
    });
    assert.deepEqual(Object.keys(guarded), ["error"]);
    assert.equal(guarded.error.code, -32042);
    assert.equal(guarded.error.message, raw.error.message); // "MCP error -32042: URL elicitation required", once
    assert.deepEqual(guarded.error.data.elicitations, [{ ...elicitation, url: "https://auth.example.com/start?token=[REDACTED:github-token]" }]);
    assert.ok(outcome.error instanceof UrlElicitationRequiredError, "the SDK client sees a URL elicitation");
    assert.equal(outcome.error.elicitations[0].elicitationId, "e-1");
  });

  test("a thrown value that cannot be read fails closed: the generic answer, nothing of it on the wire", async () => {
    // Before: the getter's own error escaped the wrapper, and McpServer wrote its message.
    const secret = `token ${GITHUB_TOKEN}`;
    const throwingMessage = Object.defineProperty(new Error("x"), "message", {
      get() {
        throw new Error(secret);
      },
    });
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const hostile = new Proxy(new Error(secret), {
      getPrototypeOf() {
        throw new Error(secret);
      },
    });
    for (const thrown of [throwingMessage, revoked.proxy, hostile]) {
      const { guarded } = await bothWays(async () => {
        throw thrown;
      });
      assert.deepEqual(guarded, { result: { content: [{ type: "text", text: "Internal error" }], isError: true } });
    }
    // As a low-level handler: the plain internal error, not the getter's.
    const handler = guardTool(async () => {
      throw throwingMessage;
    }, { name: "t", ...quiet });
    await assert.rejects(handler(), (e) => e instanceof McpError && e.code === -32603 && e.message === "Internal error");
    // A result the tool returns that cannot be written is a failure too: the failure to write it.
    const bigint = guardTool(async () => ({ content: [], isError: true, structuredContent: { n: 1n } }), { name: "t", ...quiet });
    assert.deepEqual(await bigint(), { content: [{ type: "text", text: "Do not know how to serialize a BigInt" }], isError: true });
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
    const long = `${failure().message}\n${"x".repeat(2 * FAILED_RESULT_BYTES)}\nthe end`;
    const handler = guardTool(() => ({ content: [{ type: "text", text: long }], isError: true }), { name: "t" });
    const result = await handler();
    assert.equal(result.isError, true);
    assert.deepEqual(leaked(result), []);
    const size = Buffer.byteLength(result.content[0].text);
    assert.ok(size <= FAILED_RESULT_BYTES && size > FAILED_RESULT_BYTES / 2, `${size} bytes`);
    assert.match(result.content[0].text, /\[REDACTED:github-token\]/);
    assert.match(result.content[0].text, /the end$/, "the cut keeps the text's end");
  });

  test("guardTools wraps every tool registered afterwards, with its own name", async () => {
    const errors = [];
    const server = guardTools(new McpServer({ name: "s", version: "1" }), { ...quiet, onError: (error, tool) => errors.push([tool, error.name, error.message]) });
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
      assert.deepEqual(boom, { content: [{ type: "text", text: "bad 7 at /home/[REDACTED:home-user]/app/db.js" }], isError: true });
      const legacy = await client.callTool({ name: "legacy" });
      assert.deepEqual(legacy.content[0].text, "token [REDACTED:github-token]");
      assert.deepEqual((await client.callTool({ name: "fine" })).content, [{ type: "text", text: "fine" }]);
      // The operator keeps the path, never the token.
      assert.deepEqual(errors, [["boom", "TypeError", `bad 7 at ${HOME_PATH}`], ["legacy", "Error", "token [REDACTED:github-token]"]]);
    } finally {
      await client.close();
    }
  });
});

describe("guardTool as a low-level tools/call handler", () => {
  test("the SDK writes exactly the guard's answer to McpServer's own response, in any dialect", async () => {
    // Before: an error object (-32603, "Error: <message>") where McpServer answers with a tool result.
    for (const dialect of ["mcp", "canonical", "watchgate"]) {
      const thrown = failure();
      const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, guardTool(async () => {
        throw thrown;
      }, { name: "query_orders", dialect, ...quiet }));
      const { client, wire } = await connected(server);
      try {
        const mcpServers = { result: { content: [{ type: "text", text: thrown.message }], isError: true } };
        const expected = guardsAnswer("query_orders", mcpServers, dialect);
        await client.callTool({ name: "query_orders" }).catch(() => {});
        assert.deepEqual(lastResponse(wire), expected, dialect);
        assert.deepEqual(leaked(lastResponse(wire)), []);
      } finally {
        await client.close();
      }
    }
  });

  test("canonicalToolError: the same message gives the same answer whatever the stack; a non-Error is its String()", () => {
    const a = new RangeError("limit 5 exceeded for ops@example.com");
    const b = new RangeError("limit 5 exceeded for ops@example.com");
    b.stack = "RangeError: elsewhere\n    at other (/home/bob/x.js:1:1)";
    assert.deepEqual(canonicalToolError("t", a), canonicalToolError("t", b));
    assert.deepEqual(canonicalToolError("t", a).result.content[0].text, "limit 5 exceeded for [REDACTED:email]");
    assert.deepEqual(canonicalToolError("t", "plain string"), canonicalToolError("t", new Error("plain string")));
  });

  test("wrapping twice changes nothing", async () => {
    const handler = guardTool(async () => {
      throw new Error("once");
    }, { name: "t", ...quiet });
    assert.equal(guardTool(handler, { name: "t" }), handler);
    const server = new McpServer({ name: "s", version: "1" });
    assert.equal(guardTools(guardTools(server, quiet)), server);
    server.registerTool("boom", {}, async () => {
      throw new Error("once");
    });
    const { client } = await connected(server);
    try {
      assert.equal((await client.callTool({ name: "boom" })).content[0].text, "once");
    } finally {
      await client.close();
    }
  });

  test("the name defaults to the handler's own, as Python's guard_tool does; an anonymous handler must be given one", async () => {
    // Before: options.name was required even for a named function.
    async function query_orders() {
      throw failure();
    }
    const tools = [];
    const server = new McpServer({ name: "s", version: "1" });
    server.registerTool("query_orders", {}, guardTool(query_orders, { ...quiet, onError: (_error, tool) => tools.push(tool) }));
    const { client, wire } = await connected(server);
    try {
      await client.callTool({ name: "query_orders" });
    } finally {
      await client.close();
    }
    assert.deepEqual(tools, ["query_orders"]);
    assert.deepEqual(lastResponse(wire), { result: canonicalToolError("query_orders", failure()).result });
    assert.deepEqual(leaked(lastResponse(wire)), []);
    // An explicit name wins over the function's.
    const named = [];
    await guardTool(query_orders, { name: "orders", ...quiet, onError: (_e, tool) => named.push(tool) })();
    assert.deepEqual(named, ["orders"]);
    // No name of its own: an arrow function written in the call, a bound function ("bound query_orders").
    for (const handler of [async () => ({}), query_orders.bind(null)]) {
      assert.throws(() => guardTool(handler), (e) => e instanceof ArgumentTypeError && /options\.name/.test(e.message));
    }
    assert.throws(() => guardTool(query_orders, { name: "" }), ArgumentTypeError);
  });

  test("bad arguments are refused when wrapping, not at the first failure", () => {
    assert.throws(() => guardTool(async () => ({}), {}), /name/);
    assert.throws(() => guardTool("nope", { name: "t" }), /handler/);
    assert.throws(() => guardTool(async () => ({}), { name: "t", dialect: "klingon" }), /dialect/);
    assert.throws(() => guardTool(async () => ({}), { name: "t", logger: {} }), /logger/);
    assert.throws(() => guardTool(async () => ({}), { name: "t", onError: "log" }), /onError/);
    assert.throws(() => guardTools({}), /McpServer/);
  });
});

describe("what the operator gets: the failure redacted (secrets gone, traces and paths kept), by default", () => {
  test("onError gets a redacted Error, never the thrown value", async () => {
    // Before: onError got the thrown value itself, token and password included.
    const errors = [];
    const thrown = Object.assign(failure(), { config: { password: "hunter2" } });
    const handler = guardTool(async () => {
      throw thrown;
    }, { name: "query_orders", ...quiet, onError: (error, tool) => errors.push({ error, tool }) });
    await handler();
    assert.equal(errors.length, 1);
    const [{ error, tool }] = errors;
    assert.equal(tool, "query_orders");
    assert.ok(error instanceof Error && error !== thrown);
    assert.deepEqual(Object.keys(error), [], "nothing of the thrown value but its name, message and stack");
    assert.deepEqual(leaked(`${error.name} ${error.message} ${error.stack}`, CREDENTIALS), []);
    assert.match(error.message, /GITHUB_TOKEN=\[REDACTED:github-token\]/);
    assert.match(error.stack, /\/home\/alice\/app\/db\.js/, "paths stay");
    assert.match(error.stack, /\n\s+at connect \(.*mcp-fixture\/server\.js:\d+:\d+\)/, "the trace stays");
  });

  test("a failure is logged by default (console.error), redacted; to `logger` when given; not at all with null", async (t) => {
    // Before: without onError nothing was logged.
    const consoleError = t.mock.method(console, "error", () => {});
    const throwing = (options) => guardTool(async () => {
      throw failure();
    }, { name: "query_orders", ...options });
    await throwing({})();
    assert.equal(consoleError.mock.callCount(), 1);
    const [line] = consoleError.mock.calls[0].arguments;
    assert.match(line, /tool "query_orders" failed/);
    assert.match(line, /GITHUB_TOKEN=\[REDACTED:github-token\]/);
    assert.match(line, /\n\s+at connect \(/);
    assert.deepEqual(leaked(line, CREDENTIALS), []);
    const logged = [];
    await throwing({ logger: { error: (text) => logged.push(text) } })();
    await throwing({ logger: null })();
    assert.equal(logged.length, 1);
    assert.equal(consoleError.mock.callCount(), 1);
    // A logger or a callback that fails costs the answer nothing.
    const broken = guardTool(async () => {
      throw new Error("boom");
    }, { name: "t", logger: { error: () => { throw new Error("sink down"); } }, onError: () => { throw new Error("also down"); } });
    assert.deepEqual(await broken(), { content: [{ type: "text", text: "boom" }], isError: true });
  });

  test("an unreadable thrown value is reported as such, without reading it", async () => {
    const errors = [];
    const handler = guardTool(async () => {
      throw Object.defineProperty(new Error("x"), "message", { get() { throw new Error(`token ${GITHUB_TOKEN}`); } });
    }, { name: "t", ...quiet, onError: (error) => errors.push(error.message) });
    await handler().catch(() => {});
    assert.deepEqual(errors, ["the tool threw a value that cannot be read"]);
  });
});
