// What jsonrpc-errors/mcp's GuardedTransport adds per message (a script, not a test):
//   node bench/js/bench-mcp.mjs [N]    (`scripts/bench.sh js-mcp`; N tools/call round trips per round, default 20000)
//
// Two levels, each bare and guarded in the same run, rounds alternating (bare, guarded, bare, ...) so drift
// hits both alike; the median round is reported:
// 1. transport: an InMemoryTransport pair and nothing else. The client side sends a tools/call request; the
//    server side answers it at once with a small CallToolResult. Guarded, the client side's transport is
//    the adapter around the same pair, so the difference is the adapter alone: JSON.stringify of both
//    messages, the guard session's verdict on each (one call into the WebAssembly module), the pending
//    table, the deadline timer.
// 2. SDK: the official Client.callTool against an McpServer's echo tool over the same pair (what a user
//    sees: the SDK's own validation and dispatch included).
// A round trip is two messages (request and response); µs per message is half the round trip's.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { guardTransport } from "jsonrpc-errors/mcp";

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = 7;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// ------------------------------------------------------------------------------------------ transport level
async function transportPair(guarded) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (request) => {
    void serverSide.send({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: request.params.arguments.text }] } });
  };
  const client = guarded ? guardTransport(clientSide) : clientSide;
  let settle;
  client.onmessage = (response) => settle(response);
  await serverSide.start();
  await client.start();
  let id = 0;
  return {
    async roundTrips(n) {
      for (let i = 0; i < n; i++) {
        const answered = new Promise((resolve) => (settle = resolve));
        await client.send({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } });
        const response = await answered;
        if (response.id !== id) throw new Error(`answer to ${response.id}, expected ${id}`);
      }
    },
    close: () => client.close(),
  };
}

// ------------------------------------------------------------------------------------------ SDK level
async function sdkPair(guarded) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  server.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }));
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(guarded ? guardTransport(clientSide) : clientSide);
  return {
    async roundTrips(n) {
      for (let i = 0; i < n; i++) {
        const result = await client.callTool({ name: "echo", arguments: { text: "hello" } });
        if (result.content[0].text !== "hello") throw new Error("wrong answer");
      }
    },
    close: () => client.close(),
  };
}

async function measure(label, makePair, n) {
  const bare = await makePair(false);
  const guarded = await makePair(true);
  // Warm-up: JIT and the guard module's first calls.
  await bare.roundTrips(Math.min(n, 2000));
  await guarded.roundTrips(Math.min(n, 2000));
  const times = { bare: [], guarded: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, pair] of [["bare", bare], ["guarded", guarded]]) {
      const started = process.hrtime.bigint();
      await pair.roundTrips(n);
      times[name].push(Number(process.hrtime.bigint() - started) / 1e3 / n); // µs per round trip
    }
  }
  await bare.close();
  await guarded.close();
  const b = median(times.bare);
  const g = median(times.guarded);
  console.log(`${label}: ${n} tools/call round trips x ${ROUNDS} rounds (median round)`);
  console.log(`  bare     ${b.toFixed(2)} µs per round trip, ${(b / 2).toFixed(2)} µs per message`);
  console.log(`  guarded  ${g.toFixed(2)} µs per round trip, ${(g / 2).toFixed(2)} µs per message`);
  console.log(`  added    ${((g - b) / 2).toFixed(2)} µs per message; guarded / bare = ${(g / b).toFixed(2)}x\n`);
}

console.log(`node ${process.version}, ${process.arch}\n`);
await measure("1. transport (InMemoryTransport pair alone)", transportPair, N);
await measure("2. SDK (Client.callTool -> McpServer echo tool)", sdkPair, Math.max(1, Math.round(N / 4)));
