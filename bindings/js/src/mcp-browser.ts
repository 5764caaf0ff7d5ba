// `jsonrpc-errors/mcp` for browsers and bundlers: the guard module fetched as `jsonrpc-errors/guard` fetches
// it, then the MCP SDK adapters on top of it.

import "./guard-browser.js";

export * from "./mcp.js";
