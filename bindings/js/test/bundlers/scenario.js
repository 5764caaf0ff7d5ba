// What every bundled page of test/bundlers.test.mjs runs, and what the test runs in Node on the package's Node
// entries to know the right answers: an error mapped, a secret redacted, and a tool call through the MCP
// adapter (the SDK's InMemoryTransport) whose upstream answers with an error full of secrets.
// `lib`: { mapError, redact, guardTransport, InMemoryTransport }.

export const TOKEN = "ghp_" + "Zq8mW3xR7tK2pL9vN4bC6hJ1fD5sA0yE8uG2".slice(0, 36);
export const PASSWORD_LINE = "db connect failed: postgres://app:Pa55-w0rd-9f8e7d@db.internal:5432/orders";

export async function scenario({ mapError, redact, guardTransport, InMemoryTransport }) {
  const context = { unixMillis: 1_767_225_600_000, entropy: 42 };
  const mapped = mapError({ kind: "rate-limited", retry_after_secs: 3, id: "a" }, "canonical", { context });
  const redacted = redact(`${PASSWORD_LINE} (token ${TOKEN})`);

  // The adapter: a client's tools/call through guardTransport; the upstream fails it with secrets in the error.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  serverSide.onmessage = (message) => {
    if (message.method === "tools/call") {
      void serverSide.send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32000, message: `query failed with ${TOKEN} at /home/alice/app/db.js:12`, data: { stack: "Error: boom\n    at /home/alice/app/db.js:12:5" } },
      });
    }
  };
  await serverSide.start();
  const guarded = guardTransport(clientSide, { dialect: "mcp" });
  const answer = new Promise((resolve) => (guarded.onmessage = resolve));
  await guarded.start();
  await guarded.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "query_orders", arguments: {} } });
  const toolAnswer = await answer;
  await guarded.close();
  return { mapped, redacted, toolAnswer };
}
