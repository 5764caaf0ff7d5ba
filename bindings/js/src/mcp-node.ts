// `jsonrpc-errors/mcp` for Node: the guard module loaded as `jsonrpc-errors/guard` loads it (synchronously),
// then the MCP SDK adapters on top of it.

import "./guard-node.js";

// `init` for code that runs in browsers too: the module is already loaded here, so it resolves at once.
export { init } from "./init.js";
export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./mcp.js";
