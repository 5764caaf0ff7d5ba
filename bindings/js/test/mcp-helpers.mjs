// Shared by the jsonrpc-errors/mcp tests (they need the MCP SDK, which the other tests do not).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

/** The guard's cut of a failed tool result's text (taxonomy/taxonomy.toml is its single home). */
export const FAILED_RESULT_BYTES = Number(
  readFileSync(new URL("../../../taxonomy/taxonomy.toml", import.meta.url), "utf8").match(/^failed_result_text_bytes = (\d+)/m)[1],
);

/** What a client gets from a call: its result, or the McpError it throws (code, message, data). */
export async function outcome(promise) {
  try {
    return { result: await promise };
  } catch (e) {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    return { error: { code: e.code, message: e.message, data: e.data } };
  }
}
