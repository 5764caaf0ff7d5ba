// The Chromium page of test/mcp-browser.test.mjs (built by Vite): an SDK Client and an SDK McpServer in the
// page, connected by an InMemoryTransport pair through jsonrpc-errors/mcp's browser entry.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { guardTool, guardTransport, init } from "../../dist/mcp-browser.js";
import { GITHUB_TOKEN, HOME_PATH, misbehavingServer, SECRETS } from "./server.js";

async function failure(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return { code: e.code, message: e.message, type: e.data?.type };
  }
}

try {
  await init();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = misbehavingServer({ crash: () => void serverSide.close() });
  const toolErrors = [];
  server.registerTool("guarded_query", {}, guardTool(async () => {
    throw new Error(`lookup with ${GITHUB_TOKEN} in ${HOME_PATH} failed`);
  }, { name: "guarded_query", onError: (error, tool) => toolErrors.push(`${tool}: ${error.message === `lookup with [REDACTED:github-token] in ${HOME_PATH} failed`}`) }));
  await server.connect(serverSide);
  const events = [];
  const client = new Client({ name: "page", version: "1.0.0" });
  await client.connect(guardTransport(clientSide, { onEvent: (e) => events.push(e.event) }));
  const echo = await client.callTool({ name: "echo", arguments: { text: "hello from the page" } });
  const failing = await client.callTool({ name: "query_orders", arguments: { customer: "acme" } });
  const guarded = await client.callTool({ name: "guarded_query" });
  const charges = await failure(client.readResource({ uri: "ledger://charges" }));
  const crash = await failure(client.callTool({ name: "crash" }));
  const everything = JSON.stringify([failing, guarded, charges, crash]);
  window.__done = {
    echo: echo.content[0].text,
    failing: { isError: failing.isError, redacted: failing.content[0].text.includes("[REDACTED:github-token]") },
    guarded,
    charges,
    crash,
    events,
    toolErrors,
    leaked: SECRETS.filter((s) => everything.includes(s)),
  };
} catch (e) {
  window.__done = { error: String((e && e.stack) || e) };
}
