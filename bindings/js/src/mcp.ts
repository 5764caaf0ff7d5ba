// `jsonrpc-errors/mcp`: the guard (a `GuardSession`, wit/world.wit interface `guard`) fitted to the official
// MCP TypeScript SDK, so a proxy, a gateway or a client on the SDK gets exactly what `jsonrpc-errors guard`
// does, decided by the same WebAssembly policy. Nothing here decides anything about a message: every line
// goes to the session, and the steps it returns are carried out in order.
//
// The SDK is imported for its types only (it is an optional peer dependency); the one runtime use, McpError
// for tool errors the guard answers with an error object, is a dynamic import made when such an error happens.
//
// The modules under mcp/, one way: lines and log at the bottom, transport on both, tools on log. This file
// and the entries (mcp-node.ts, mcp-browser.ts) only re-export.

export { GuardedTransport, guardTransport, type GuardTransportOptions } from "./mcp/transport.js";
export type { LineEnds, LineTransport } from "./mcp/lines.js";
export type { ToolErrorLogger } from "./mcp/log.js";
export { canonicalToolError, guardTool, guardTools, type GuardToolOptions, type ToolAnswer } from "./mcp/tools.js";

export type { EventStep, UpstreamFailure } from "./guard.js";
export type { Dialect } from "./taxonomy.js";
