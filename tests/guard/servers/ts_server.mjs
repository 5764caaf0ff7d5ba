// The misbehaving stdio MCP server again, on the official TypeScript SDK (McpServer +
// StdioServerTransport): same tools, same resource, same faults as
// examples/guard/misbehaving_server.py, so each SDK's client can be tested against each
// SDK's server, with and without `jsonrpc-errors guard` in between.
//
//     node tests/guard/servers/ts_server.mjs
//
// Needs `npm install` in tests/guard (see setup.sh).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

// Fake secrets, shaped like the real thing so the redaction rules fire on them.
const GITHUB_TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'; // ghp_ + 36 alphanumerics
const DB_URL = 'postgres://admin:hunter2@db.internal:5432/orders';
const HOME_PATH = '/home/alice/app/db.js';
const STRIPE_KEY = 'sk_live_' + '51HxQ2eZvKYlo2C9x8w7v6u5t4';
const OPENAI_KEY = 'sk-proj-' + 'Zq8xW3vN6mK2pL9rT4yU7iO1aS5dF0gH';

const text = (s) => ({ content: [{ type: 'text', text: s }] });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// The stack of a real error thrown two frames down, as a server would log or forward it.
function innerStack() {
  function connect() {
    throw new Error(`could not connect to ${DB_URL} (config ${HOME_PATH})`);
  }
  function loadOrders() {
    connect();
  }
  try {
    loadOrders();
  } catch (err) {
    return err.stack;
  }
  throw new Error('unreachable');
}

const server = new McpServer({ name: 'misbehaving-server', version: '1.0.0' });

server.registerTool(
  'echo',
  { description: 'Return the text unchanged.', inputSchema: { text: z.string() } },
  async ({ text: s }) => text(s),
);

server.registerTool(
  'count',
  {
    description: 'Count to `steps`, reporting progress after each step (if the client asked for it).',
    inputSchema: { steps: z.number().int().default(3), delay_ms: z.number().int().default(50) },
  },
  async ({ steps, delay_ms }, extra) => {
    const progressToken = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await sleep(delay_ms);
      // Only when the request carried _meta.progressToken, as the spec asks.
      if (progressToken !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: i, total: steps, message: `step ${i}/${steps}` },
        });
      }
    }
    return text(`counted ${steps}`);
  },
);

server.registerTool(
  'query_orders',
  {
    description: 'Fail with an error text that leaks a token, a credentialed URL, a home path and a stack trace.',
    inputSchema: { customer: z.string() },
  },
  // McpServer turns whatever a tool throws into {isError: true} with error.message as the text.
  async ({ customer }) => {
    throw new Error(
      `query for '${customer}' failed (GITHUB_TOKEN=${GITHUB_TOKEN}, db=${DB_URL}, source ${HOME_PATH}):\n${innerStack()}`,
    );
  },
);

server.registerTool(
  'charge_card',
  {
    description: 'Throw an McpError with a custom code, a secret in the message and a stack in data.',
    inputSchema: { amount: z.number() },
  },
  // The SDK's error-response mechanism. Note: McpServer's tools/call handler catches every
  // McpError (bar -32042 URL elicitation) and returns it as an isError result, so this
  // does not reach the wire as a JSON-RPC error (see tests/guard/README.md).
  async ({ amount }) => {
    throw new McpError(
      -32010,
      `charge of ${amount} declined: Stripe key ${STRIPE_KEY} rejected, password=hunter2`,
      { stack: innerStack(), db: DB_URL },
    );
  },
);

server.registerTool(
  'export_report',
  { description: 'Fail with a ~13 KB error text (long but harmless: longer than the 8 KiB cut of the guard).' },
  async () => {
    const lines = Array.from(
      { length: 200 },
      (_, i) => `2024-05-01T12:00:${String(i % 60).padStart(2, '0')}Z INFO export: processed batch ${i} of 200 (ok)`,
    );
    throw new Error('export failed after a long run:\n' + lines.join('\n'));
  },
);

server.registerTool(
  'flaky_print',
  { description: 'Write one line of non-JSON to stdout (the wire), then answer normally.' },
  async () => {
    // The same stream the transport writes its frames to, one whole line, so it lands
    // between two frames as a line of its own (pipe writes are synchronous on Linux).
    process.stdout.write('DEBUG: entering flaky_print (this line is not JSON)\n');
    return text('printed');
  },
);

server.registerTool(
  'crash',
  { description: 'Kill the server process while the request is in flight.' },
  async () => {
    process.stderr.write('ts_server: crash() called, exiting with status 3\n');
    process.exit(3);
  },
);

server.registerTool(
  'sleep',
  { description: 'Sleep `ms` milliseconds, then answer.', inputSchema: { ms: z.number().int() } },
  async ({ ms }) => {
    await sleep(ms);
    return text('slept');
  },
);

server.registerResource('info', 'info://server', { mimeType: 'text/plain' }, async (uri) => ({
  contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'misbehaving-server 1.0.0 (typescript sdk 1.32.2)' }],
}));

// A startup log line with a secret in it: the guard redacts relayed stderr.
process.stderr.write(`ts_server: connecting with API_KEY=${OPENAI_KEY}\n`);
await server.connect(new StdioServerTransport());
