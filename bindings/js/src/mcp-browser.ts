// `jsonrpc-errors/mcp` for browsers and bundlers: the MCP SDK adapters on the guard module, which
// `await init()` loads (as `jsonrpc-errors/guard`'s does: the same module, one load).

export { init } from "./guard-browser.js";
export type { InitOptions, WasmResponse, WasmSource } from "./init.js";
export * from "./mcp.js";
