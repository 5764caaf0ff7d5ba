// `jsonrpc-errors/mcp` for Node: the guard module loaded as `jsonrpc-errors/guard` loads it (synchronously),
// then the MCP SDK adapters on top of it.

import "./guard-node.js";

export * from "./mcp.js";
