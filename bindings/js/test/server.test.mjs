// errorResponse in a real plain JSON-RPC server: an Express app on loopback whose handlers throw errors full
// of secrets, answered from Express's own error middleware (Express 5 routes a rejected async handler there).
// The client gets the canonical error, redacted; the operator one record, redacted, with the stack and the
// error's type; every request exactly one answer.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import express from "express";
import { JsonRpcError, mapError } from "jsonrpc-errors";
import { ArgumentTypeError, errorResponse, InvalidInputError, redactJsonValue, redactWith } from "jsonrpc-errors/guard";
import { DB_URL, GITHUB_TOKEN, HOME_PATH, STRIPE_KEY } from "./mcp-fixture/server.js";

const CONTEXT = { unixMillis: 1767225600000, entropy: 42 };
const CREDENTIALS = ["ghp_A1b2", "hunter2", "sk_live_51", "admin:"];
/** What the client must not see either: paths and stack traces are the operator's. */
const SECRETS = [...CREDENTIALS, "/home/alice", "server.test.mjs", "    at "];
const THIS_FILE = new URL(import.meta.url).pathname;

function leaked(value, secrets = SECRETS) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return secrets.filter((s) => text.includes(s));
}

function connect() {
  throw new Error(`could not reach ${DB_URL} with ${GITHUB_TOKEN} and ${STRIPE_KEY} (config ${HOME_PATH})`);
}

const METHODS = {
  "orders/query": async () => {
    await Promise.resolve();
    connect();
  },
  "tasks/get": (params) => {
    throw JsonRpcError.fromKind("task-not-found", { task_id: params.task_id }, "canonical", { context: CONTEXT });
  },
  // Hand-built: message and data straight from the code, secrets included.
  "billing/charge": () => {
    throw new JsonRpcError(-32010, `payment declined for key ${STRIPE_KEY}`, { password: "hunter2", upstream: DB_URL });
  },
  echo: (params) => params,
};

/** A plain JSON-RPC 2.0 endpoint; failures reach Express's error middleware, which answers with errorResponse. */
function rpcApp(options) {
  const app = express();
  const log = { texts: [], events: [], answers: [] };
  app.use(express.json());
  app.post("/rpc", async (req, res) => {
    const { id, method, params } = req.body;
    const result = await METHODS[method](params);
    res.json({ jsonrpc: "2.0", result, id });
  });
  app.use((error, req, res, _next) => {
    const response = errorResponse(error, req.body?.id ?? null, {
      method: req.body?.method,
      context: CONTEXT,
      logger: { error: (t) => log.texts.push(["error", t]), info: (t) => log.texts.push(["info", t]) },
      onEvent: (event) => log.events.push(event),
      ...options,
    });
    res.json(response);
  });
  // Every response the server writes, counted where it leaves.
  const wrapped = express();
  wrapped.use((req, res, next) => {
    res.on("finish", () => log.answers.push(req.body?.id));
    next();
  });
  wrapped.use(app);
  return { app: wrapped, log };
}

async function serve(app) {
  const server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return { url: `http://127.0.0.1:${server.address().port}/rpc`, close: () => new Promise((r) => server.close(r)) };
}

async function post(url, body) {
  const reply = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: reply.status, text: await reply.text() };
}

describe("errorResponse behind a real Express app", () => {
  let canonical, mcp, redacting;
  before(async () => {
    canonical = { ...rpcApp(), ...{} };
    mcp = rpcApp({ dialect: "mcp" });
    redacting = rpcApp({ redaction: { sensitiveKeys: ["upstream"] } });
    for (const s of [canonical, mcp, redacting]) Object.assign(s, await serve(s.app));
  });
  after(async () => {
    for (const s of [canonical, mcp, redacting]) await s.close();
  });

  test("a thrown Error: the dialect's internal error, once; the operator gets the stack, redacted", async () => {
    const reply = await post(canonical.url, { jsonrpc: "2.0", id: 7, method: "orders/query", params: {} });
    assert.equal(reply.status, 200);
    const response = JSON.parse(reply.text);
    assert.deepEqual(response, mapError({ kind: "internal-error", id: 7 }, "canonical", { context: CONTEXT }));
    assert.deepEqual(leaked(reply.text), []);
    assert.ok(!reply.text.includes("could not reach"));
    assert.deepEqual(canonical.log.answers, [7], "answered exactly once");
    assert.equal(canonical.log.events.length, 1);
    const [event] = canonical.log.events;
    assert.deepEqual(
      [event.event, event.level, event.kind, event.code, event.id, event.method, event.exception],
      ["request-failed", "error", "internal-error", -32603, 7, "orders/query", "Error"],
    );
    assert.equal(event.correlation_id, response.error.data.correlation_id);
    const [[level, text]] = canonical.log.texts;
    assert.equal(level, "error");
    for (const logged of [event.detail, text]) {
      assert.deepEqual(leaked(logged, CREDENTIALS), [], logged);
      assert.match(logged, /could not reach postgres:\/\/\[REDACTED:url-credentials\]@db\.internal/);
      assert.ok(logged.includes(HOME_PATH), "paths stay");
      assert.ok(new RegExp(`\\n\\s+at connect \\(file://${THIS_FILE}:\\d+:\\d+\\)`).test(logged), "the stack stays");
    }
  });

  test("a JsonRpcError thrown on purpose is answered as thrown, logged at its kind's level", async () => {
    const reply = await post(canonical.url, { jsonrpc: "2.0", id: "t-1", method: "tasks/get", params: { task_id: "t1" } });
    const expected = JsonRpcError.fromKind("task-not-found", { task_id: "t1" }, "canonical", { context: CONTEXT }).toResponse("t-1");
    assert.deepEqual(JSON.parse(reply.text), expected);
    const event = canonical.log.events.at(-1);
    assert.deepEqual([event.kind, event.code, event.level], ["task-not-found", expected.error.code, "info"]);
    assert.equal(canonical.log.texts.at(-1)[0], "info");
  });

  test("a hand-built JsonRpcError keeps its code and loses its secrets, under the redaction options", async () => {
    const reply = await post(redacting.url, { jsonrpc: "2.0", id: 3, method: "billing/charge" });
    const { error } = JSON.parse(reply.text);
    assert.equal(error.code, -32010);
    assert.deepEqual(leaked(error), []);
    assert.equal(error.message, redactWith(`payment declined for key ${STRIPE_KEY}`).text);
    assert.deepEqual(error.data, redactJsonValue({ password: "hunter2", upstream: DB_URL }, { sensitiveKeys: ["upstream"] }).value);
    assert.deepEqual(leaked(redacting.log.texts, CREDENTIALS), []);
  });

  test("in the mcp dialect, each request answered once", async () => {
    const replies = await Promise.all([1, 2, 3].map((id) => post(mcp.url, { jsonrpc: "2.0", id, method: id === 2 ? "echo" : "orders/query", params: { id } })));
    assert.deepEqual(JSON.parse(replies[1].text), { jsonrpc: "2.0", result: { id: 2 }, id: 2 });
    for (const id of [1, 3]) {
      assert.deepEqual(JSON.parse(replies[id - 1].text), mapError({ kind: "internal-error", id }, "mcp", { context: CONTEXT }));
    }
    assert.deepEqual([...mcp.log.answers].sort(), [1, 2, 3]);
    assert.deepEqual(mcp.log.events.map((e) => e.id).sort(), [1, 3]);
  });
});

test("errorResponse refuses bad arguments clearly, and never echoes the thrown value", () => {
  const thrown = new Error(`boom ${GITHUB_TOKEN}`);
  assert.throws(() => errorResponse(thrown, { not: "an id" }, { logger: null }), (e) => e instanceof InvalidInputError && e.error.data.reason === "invalid-id-type" && leaked(e.message).length === 0);
  assert.throws(() => errorResponse(thrown, 1, { dialect: "klingon", logger: null }), InvalidInputError);
  assert.throws(() => errorResponse(thrown, 1, { redaction: { sensitive_keys: ["x"] }, logger: null }), ArgumentTypeError);
  assert.throws(() => errorResponse(thrown, 1, { logger: {} }), ArgumentTypeError);
  // A value that cannot be read fails closed: the internal error, and a record that says so.
  const events = [];
  const hostile = new Proxy(new Error("x"), { get: () => { throw new Error(`getter ${GITHUB_TOKEN}`); } });
  const response = errorResponse(hostile, 1, { logger: null, onEvent: (e) => events.push(e), context: CONTEXT });
  assert.deepEqual(response, mapError({ kind: "internal-error", id: 1 }, "canonical", { context: CONTEXT }));
  assert.deepEqual(leaked(events, CREDENTIALS), []);
});
