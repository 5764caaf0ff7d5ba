// jsonrpc-errors/mcp in the npm tarball: shipped, exported for Node and browsers, and importable from an
// empty project that does not have the MCP SDK (an optional peer: the package uses its types, and loads
// McpError only when a tool error has to be thrown as one).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { PKG_DIR } from "./helpers.mjs";
import { installIntoTempProject, packedFiles } from "./pack-helpers.mjs";

const cleanup = [];
after(() => cleanup.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("the tarball ships the mcp entry points and their types; package.json exports ./mcp and makes the SDK an optional peer", () => {
  const files = packedFiles().files.map((f) => f.path);
  for (const f of ["dist/mcp.js", "dist/mcp.d.ts", "dist/mcp-node.js", "dist/mcp-node.d.ts", "dist/mcp-browser.js", "dist/mcp-browser.d.ts"]) {
    assert.ok(files.includes(f), `${f} is missing from the tarball`);
  }
  const pkg = JSON.parse(readFileSync(join(PKG_DIR, "package.json"), "utf8"));
  assert.deepEqual(pkg.exports["./mcp"], { types: "./dist/mcp-node.d.ts", node: "./dist/mcp-node.js", browser: "./dist/mcp-browser.js", default: "./dist/mcp-browser.js" });
  assert.equal(pkg.peerDependenciesMeta["@modelcontextprotocol/sdk"].optional, true);
  assert.equal(pkg.devDependencies["@modelcontextprotocol/sdk"], "1.32.2");
  assert.equal(pkg.dependencies?.["@modelcontextprotocol/sdk"], undefined);
  // Types only at import time: no runtime import of the SDK in the built modules (mcp.js re-exports those of
  // dist/mcp/, which the tarball ships with their types), one lazy import() for McpError. Outside dist/mcp/ they
  // load errors.js, guard.js and runtime.js (for the guard module's input limit, which guard.js loads anyway).
  const modules = ["mcp.js", ...readdirSync(join(PKG_DIR, "dist", "mcp")).filter((f) => f.endsWith(".js")).sort().map((f) => `mcp/${f}`)];
  assert.ok(modules.length > 1, "dist/mcp/ has no modules");
  const imports = new Map();
  const lazy = [];
  for (const module of modules) {
    for (const f of [`dist/${module}`, `dist/${module.replace(/\.js$/, ".d.ts")}`]) assert.ok(files.includes(f), `${f} is missing from the tarball`);
    const built = readFileSync(join(PKG_DIR, "dist", module), "utf8");
    const specifiers = [...built.matchAll(/^(?:import|export)\s+(?:[\w*\s,]*\{[^}]*\}\s*from\s+|[\w*\s,]+\sfrom\s+)?"([^"]+)";$/gm)];
    imports.set(`dist/${module}`, specifiers.map(([, s]) => (s.startsWith(".") ? new URL(s, `file:///dist/${module}`).pathname.slice(1) : s)));
    lazy.push(...(built.match(/import\("[^"]+"\)/g) ?? []));
  }
  const outside = new Set([...imports.values()].flat().filter((m) => !m.startsWith("dist/mcp/")));
  assert.deepEqual([...outside].sort(), ["dist/errors.js", "dist/guard.js", "dist/runtime.js"]);
  assert.deepEqual(lazy, ['import("@modelcontextprotocol/sdk/types.js")']);
  // The modules of dist/mcp/ form a stack: none imports one that imports it back.
  const reaches = (from, to, seen = new Set()) =>
    (imports.get(from) ?? []).some((m) => m === to || (!seen.has(m) && (seen.add(m), reaches(m, to, seen))));
  assert.deepEqual([...imports.keys()].filter((m) => reaches(m, m)), [], "an import cycle between the mcp modules");
});

test("installed from the tarball into a project without the SDK, jsonrpc-errors/mcp imports and guards a transport", () => {
  const main = `
import { guardTransport, canonicalToolError, guardTool } from "jsonrpc-errors/mcp";
// A transport written by hand: the adapter needs only the SDK's Transport shape.
const inner = { sent: [], async start() {}, async send(m) { this.sent.push(m); }, async close() { this.onclose?.(); } };
const guarded = guardTransport(inner, { upstream: "stdio:server" });
const seen = [];
guarded.onmessage = (m) => seen.push(m);
await guarded.start();
await guarded.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } });
await guarded.sendLine("not json");
await guarded.close();
const tool = canonicalToolError("lookup", new Error("token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"));
const result = await guardTool(() => { throw new Error("x"); }, { name: "t", logger: null })();
const unreadable = Object.defineProperty(new Error("x"), "message", { get() { throw new Error("no"); } });
let thrown;
try { await guardTool(() => { throw unreadable; }, { name: "t", logger: null })(); } catch (e) { thrown = [e.code, e.message]; }
console.log(JSON.stringify({ forwarded: inner.sent.length, answers: seen.map((m) => [m.id, m.error.code]), tool: tool.result.content[0].text, result, thrown }));
`;
  const { dir, project } = installIntoTempProject({ "main.js": main });
  cleanup.push(dir);
  assert.ok(!existsSync(join(project, "node_modules", "@modelcontextprotocol")), "npm installed the optional peer");
  const out = JSON.parse(execFileSync(process.execPath, [join(project, "main.js")], { cwd: project, encoding: "utf8" }).trim());
  assert.deepEqual(out, {
    forwarded: 1,
    answers: [[null, -32700], [1, -32000]],
    tool: "token [REDACTED:github-token]",
    result: { content: [{ type: "text", text: "x" }], isError: true },
    // Without the SDK there is no McpError: the guard's error object is thrown as a plain Error carrying it.
    thrown: [-32603, "Internal error"],
  });
});
