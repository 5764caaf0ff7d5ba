// A Streamable HTTP MCP server on the official SDK (McpServer + StreamableHTTPServerTransport on node:http)
// for test/mcp-http.test.mjs, on loopback: its first stdout line is the port it listens on, and `sleep`
// writes "sleeping" when a call is in flight (the test kills the process then). `--json` answers each POST
// with a JSON body (enableJsonResponse) instead of an SSE stream.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const server = new McpServer({ name: "http-server", version: "1.0.0" });
server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
server.registerTool("sleep", { inputSchema: { ms: z.number().int() } }, async ({ ms }) => {
  process.stdout.write("sleeping\n");
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { content: [{ type: "text", text: "slept" }] };
});
// One session (the test's one client): one transport.
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: process.argv.includes("--json") });
await server.connect(transport);
const http = createServer((req, res) => void transport.handleRequest(req, res));
http.listen(0, "127.0.0.1", () => process.stdout.write(`${http.address().port}\n`));
