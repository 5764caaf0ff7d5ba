// Shared by the jsonrpc-errors/mcp tests (they need the MCP SDK, which the other tests do not).
import assert from "node:assert/strict";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

/** What a client gets from a call: its result, or the McpError it throws (code, message, data). */
export async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (e) {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    return { error: { code: e.code, message: e.message, data: e.data } };
  }
}
