// Scripted MCP session on the official TypeScript SDK's client (Client + StdioClientTransport).
//
//     node ts_client.mjs [--per-call-timeout-ms N] [--only a,b,c] [--sleep-ms N] -- UPSTREAM_CMD [ARGS...]
//     node ts_client.mjs [...] --url http://127.0.0.1:PORT/mcp
//
// Spawns UPSTREAM_CMD (a server, or `jsonrpc-errors guard -- server`), or connects to a Streamable HTTP
// server at URL (StreamableHTTPClientTransport: `jsonrpc-errors guard --listen`), runs the steps and
// prints one JSON line per step on stdout; nothing else goes to stdout. The line shape is
// shared with py_client.py (see tests/guard/README.md) so outputs compare across SDKs.
// Exit 0 whenever the script ran to its end, whatever the calls did.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

const DEFAULT_STEPS = [
  'initialize',
  'list_tools',
  'echo',
  'count',
  'read_info',
  'query_orders',
  'charge_card',
  'export_report',
  'flaky_print',
  'echo_again',
  'crash',
];
// Not in the default session; for --only (e.g. hang tests through the guard's --timeout).
const EXTRA_STEPS = ['sleep'];

function parseArgs(argv) {
  const opts = { perCallTimeoutMs: 5000, only: '', sleepMs: 1000, upstream: [], url: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      opts.upstream = argv.slice(i + 1);
      break;
    } else if (a === '--per-call-timeout-ms') opts.perCallTimeoutMs = Number(argv[++i]);
    else if (a === '--only') opts.only = argv[++i];
    else if (a === '--sleep-ms') opts.sleepMs = Number(argv[++i]);
    else if (a === '--url') opts.url = argv[++i];
    else throw new Error(`ts_client: unknown argument ${a}`);
  }
  if (opts.upstream.length === 0 && !opts.url) throw new Error('ts_client: missing -- UPSTREAM_CMD [ARGS...] or --url URL');
  return opts;
}

// Compact, one line: the test harness reads this line by line.
const emit = (line) => process.stdout.write(JSON.stringify(line) + '\n');

// McpError's message is "MCP error <code>: <wire message>"; give back the wire message.
const wireMessage = (err) => {
  const prefix = `MCP error ${err.code}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
};

function classify(err) {
  if (err instanceof McpError) {
    // The SDK raises McpError both for a JSON-RPC error response and for its own
    // timeout/closed conditions; those two carry fixed codes and texts of its own.
    const message = wireMessage(err);
    if (err.code === ErrorCode.RequestTimeout && message === 'Request timed out') {
      return { outcome: 'timeout', exception: `McpError: ${message}` };
    }
    if (err.code === ErrorCode.ConnectionClosed && message === 'Connection closed') {
      return { outcome: 'closed', exception: `McpError: ${message}` };
    }
    const error = { code: err.code, message };
    if (err.data !== undefined) error.data = err.data;
    return { outcome: 'error', error };
  }
  const exception = `${err?.name ?? typeof err}: ${err?.message ?? String(err)}`;
  // After the connection closed, the SDK refuses new requests with a plain Error.
  if (err instanceof Error && err.message === 'Not connected') return { outcome: 'closed', exception };
  return { outcome: 'error', exception };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let steps = opts.only ? opts.only.split(',').filter(Boolean) : DEFAULT_STEPS;
  const unknown = steps.filter((s) => !DEFAULT_STEPS.includes(s) && !EXTRA_STEPS.includes(s));
  if (unknown.length) throw new Error(`ts_client: unknown step(s) ${unknown}; known: ${[...DEFAULT_STEPS, ...EXTRA_STEPS]}`);
  // The connection is the initialize step; it always comes first.
  steps = ['initialize', ...steps.filter((s) => s !== 'initialize')];

  const transport = opts.url
    ? new StreamableHTTPClientTransport(new URL(opts.url))
    : new StdioClientTransport({
        command: opts.upstream[0],
        args: opts.upstream.slice(1),
        // The whole environment, not the SDK's default allow-list (HOME, PATH, ...): the
        // upstream may be the guard, whose secret-env scrubbing the tests drive by env vars.
        env: { ...process.env },
        stderr: 'inherit',
      });
  // Protocol.connect() chains to a handler already set on the transport, so this sees
  // every inbound message; it is the only public place the negotiated version shows up.
  let protocolVersion = null;
  transport.onmessage = (message) => {
    if (protocolVersion === null && typeof message?.result?.protocolVersion === 'string') {
      protocolVersion = message.result.protocolVersion;
    }
  };

  const client = new Client({ name: 'ts-client', version: '1.0.0' });
  // Transport-level faults (e.g. an unparseable stdout line) land here; keep them for
  // the current step's line.
  const transportErrors = [];
  client.onerror = (err) => {
    transportErrors.push(`${err?.name ?? 'Error'}: ${String(err?.message ?? err).split('\n')[0]}`);
    process.stderr.write(`ts_client: transport error: ${err?.stack ?? err}\n`);
  };

  const finish = (step, started, fields) => {
    const line = { step, elapsed_ms: Math.round(performance.now() - started), ...fields };
    if (transportErrors.length) line.transport_errors = transportErrors.splice(0);
    emit(line);
  };

  const timeout = opts.perCallTimeoutMs;
  let started = performance.now();
  try {
    await client.connect(transport, { timeout });
  } catch (err) {
    finish('initialize', started, classify(err));
    await client.close().catch(() => {});
    return;
  }
  finish('initialize', started, {
    outcome: 'result',
    result: {
      protocolVersion,
      serverInfo: client.getServerVersion() ?? null,
      capabilities: client.getServerCapabilities() ?? {},
    },
  });

  const progress = [];
  const call = (name, args, extra = {}) => () =>
    client.callTool({ name, arguments: args }, undefined, { timeout, ...extra });
  const actions = {
    list_tools: () => client.listTools(undefined, { timeout }),
    echo: call('echo', { text: 'hello' }),
    count: call('count', { steps: 3, delay_ms: 50 }, { onprogress: (p) => progress.push(p.progress) }),
    read_info: () => client.readResource({ uri: 'info://server' }, { timeout }),
    query_orders: call('query_orders', { customer: 'alice' }),
    charge_card: call('charge_card', { amount: 42.5 }),
    export_report: call('export_report', {}),
    flaky_print: call('flaky_print', {}),
    echo_again: call('echo', { text: 'still there?' }),
    crash: call('crash', {}),
    sleep: call('sleep', { ms: opts.sleepMs }),
  };
  for (const name of steps.slice(1)) {
    progress.length = 0;
    started = performance.now();
    let fields;
    try {
      fields = { outcome: 'result', result: await actions[name]() };
    } catch (err) {
      process.stderr.write(`ts_client: step ${name}: ${err?.name}: ${err?.message}\n`);
      fields = classify(err);
    }
    if (name === 'count') fields.progress = [...progress];
    finish(name, started, fields);
  }
  await client.close().catch((err) => process.stderr.write(`ts_client: close: ${err}\n`));
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`ts_client: driver error: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
