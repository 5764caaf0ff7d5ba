// An in-process MCP server on the official SDK (McpServer) that misbehaves the way
// examples/guard/misbehaving_server.py does: failures that leak a token, a credentialed URL, a home path and
// a stack trace, a protocol error with secrets in its message and data, progress, a tool that hangs and one
// that kills its connection mid-request. Shared by the Node tests and the Chromium page (no Node APIs).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

// Fake secrets, shaped like the real thing so the redaction rules fire on them.
export const GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
export const DB_URL = "postgres://admin:hunter2@db.internal:5432/orders";
export const HOME_PATH = "/home/alice/app/db.js";
export const STRIPE_KEY = "sk_live_" + "51HxQ2eZvKYlo2C9x8w7v6u5t4";
/** What must never reach a client; the last is where this file's stack frames point. */
export const SECRETS = ["ghp_A1b2", "hunter2", "sk_live_51", "/home/alice", "admin:", "mcp-fixture/server.js:"];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of a real stack trace, thrown two frames down. */
export function innerStack() {
  const connect = () => {
    throw new Error(`could not connect to ${DB_URL} (config ${HOME_PATH})`);
  };
  const loadOrders = () => connect();
  try {
    loadOrders();
  } catch (e) {
    return e.stack;
  }
}

/**
 * `hooks.crash()` is called by the `crash` tool (the test ends the connection there); `hooks.aborted(ms)` when
 * a `sleep` is cancelled.
 */
export function misbehavingServer(hooks = {}) {
  const server = new McpServer({ name: "misbehaving-server", version: "1.0.0" });
  server.registerTool("echo", { description: "Return the text unchanged.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("count", { inputSchema: { steps: z.number().int().default(3), delay_ms: z.number().int().default(5) } }, async ({ steps, delay_ms }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await sleep(delay_ms);
      if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
    }
    // The SDK client dispatches notifications a microtask later than responses: let the last one land first.
    await sleep(5);
    return { content: [{ type: "text", text: `counted ${steps}` }] };
  });
  server.registerTool("query_orders", { inputSchema: { customer: z.string() } }, async ({ customer }) => {
    throw new Error(`query for ${customer} failed (GITHUB_TOKEN=${GITHUB_TOKEN}, db=${DB_URL}, source ${HOME_PATH}):\n${innerStack()}`);
  });
  server.registerTool("sleep", { inputSchema: { ms: z.number().int() } }, async ({ ms }, extra) => {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        hooks.aborted?.(ms);
        resolve();
      });
    });
    return { content: [{ type: "text", text: "slept" }] };
  });
  server.registerTool("crash", { description: "The connection dies while this request is in flight." }, async () => {
    hooks.crash?.();
    return new Promise(() => {});
  });
  server.registerResource("info", "info://server", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "misbehaving-server 1.0.0 (typescript sdk, in process)" }],
  }));
  // A JSON-RPC error response with a server-specific code and secrets in its message and data.
  server.registerResource("charges", "ledger://charges", { mimeType: "application/json" }, async () => {
    throw new McpError(-32010, `ledger declined: Stripe key ${STRIPE_KEY} rejected, password=hunter2`, { stack: innerStack(), db: DB_URL });
  });
  // A plain exception in a request handler: the SDK answers -32603 with its message.
  server.registerResource("orders", "ledger://orders", { mimeType: "application/json" }, async () => {
    throw new Error(`cannot open ${DB_URL} from ${HOME_PATH}`);
  });
  return server;
}
