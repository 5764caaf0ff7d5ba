// Scripted MCP session on the official TypeScript SDK's client (Client + StdioClientTransport, 1.32.2),
// for the real-peer tests: the counterpart of py_driver.py, with the same steps file and the same output.
//
//     node ts_driver.mjs --steps STEPS.json [--root URI]... [--per-call-timeout-ms N] -- UPSTREAM_CMD [ARGS...]
//     node ts_driver.mjs --steps STEPS.json [...] --url http://127.0.0.1:PORT/mcp     (Streamable HTTP: guard --listen)
//
// Prints one JSON line per step, then a `_callbacks` line (the server-to-client requests it answered, sorted).
// The client answers sampling with a fixed text, form elicitation with `accept` and a value for each required
// field, URL elicitation with `accept`, roots/list with the --root URIs; it declares exactly those capabilities.
//
// The SDK is loaded from tests/guard/node_modules (the pinned 1.32.2 the other guard tests use), not from
// tests/guard/real/node_modules, where the reference servers' own copy of the SDK lives.
const sdk = (p) => import(new URL(`../../node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`, import.meta.url));
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, McpError } =
  await sdk('types.js');
import { readFileSync } from 'node:fs';

function parseArgs(argv) {
  const opts = { steps: null, roots: [], perCallTimeoutMs: 15000, lingerMs: 0, upstream: [], url: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      opts.upstream = argv.slice(i + 1);
      break;
    } else if (a === '--steps') opts.steps = argv[++i];
    else if (a === '--root') opts.roots.push(argv[++i]);
    else if (a === '--url') opts.url = argv[++i];
    else if (a === '--per-call-timeout-ms') opts.perCallTimeoutMs = Number(argv[++i]);
    else if (a === '--linger-ms') opts.lingerMs = Number(argv[++i]);
    else throw new Error(`ts_driver: unknown argument ${a}`);
  }
  if (!opts.steps || (opts.upstream.length === 0 && !opts.url)) throw new Error('ts_driver: need --steps FILE -- UPSTREAM_CMD (or --url URL)');
  return opts;
}

const emit = (line) => process.stdout.write(JSON.stringify(line) + '\n');

const wireMessage = (err) => {
  const prefix = `MCP error ${err.code}: `;
  return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
};

function classify(err) {
  if (err instanceof McpError) {
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
  const exception = `${err?.name ?? typeof err}: ${String(err?.message ?? err).split('\n').slice(0, 3).join(' | ')}`;
  if (err instanceof Error && err.message === 'Not connected') return { outcome: 'closed', exception };
  return { outcome: 'error', exception };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const steps = JSON.parse(readFileSync(opts.steps, 'utf8'));
  const transport = opts.url
    ? new StreamableHTTPClientTransport(new URL(opts.url))
    : new StdioClientTransport({
        command: opts.upstream[0],
        args: opts.upstream.slice(1),
        env: { ...process.env },
        stderr: 'inherit',
      });
  let protocolVersion = null;
  transport.onmessage = (message) => {
    if (protocolVersion === null && typeof message?.result?.protocolVersion === 'string') {
      protocolVersion = message.result.protocolVersion;
    }
  };
  const capabilities = { sampling: {}, elicitation: { form: {}, url: {} } };
  if (opts.roots.length) capabilities.roots = { listChanged: true };
  const client = new Client({ name: 'ts-driver', version: '1.0.0' }, { capabilities });
  const served = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    served.push('sampling/createMessage');
    const first = request.params.messages?.[0]?.content;
    return {
      role: 'assistant',
      content: { type: 'text', text: `sampled reply to: ${first?.text ?? ''}` },
      model: 'scripted-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const mode = request.params.mode ?? 'form';
    served.push(`elicitation/create:${mode}`);
    if (mode === 'url') return { action: 'accept' };
    const schema = request.params.requestedSchema ?? {};
    const content = {};
    for (const name of schema.required ?? []) {
      const kind = schema.properties?.[name]?.type;
      content[name] = { string: `scripted ${name}`, boolean: true, integer: 1, number: 1 }[kind] ?? 'x';
    }
    return { action: 'accept', content };
  });
  if (opts.roots.length) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      served.push('roots/list');
      return { roots: opts.roots.map((uri, i) => ({ uri, name: `root${i}` })) };
    });
  }
  const transportErrors = [];
  client.onerror = (err) => {
    transportErrors.push(`${err?.name ?? 'Error'}: ${String(err?.message ?? err).split('\n')[0]}`);
    process.stderr.write(`ts_driver: transport error: ${err?.stack ?? err}\n`);
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
    emit({ step: '_callbacks', requests: served.sort() });
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
  for (const step of steps) {
    const progress = [];
    const options = { timeout };
    if (step.progress) options.onprogress = (p) => progress.push(p.progress);
    started = performance.now();
    let fields;
    try {
      let result;
      switch (step.op) {
        case 'list_tools': result = await client.listTools(undefined, options); break;
        case 'call_tool':
          result = await client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, options);
          break;
        case 'list_resources': result = await client.listResources(undefined, options); break;
        case 'list_resource_templates': result = await client.listResourceTemplates(undefined, options); break;
        case 'read_resource': result = await client.readResource({ uri: step.uri }, options); break;
        case 'list_prompts': result = await client.listPrompts(undefined, options); break;
        case 'get_prompt':
          result = await client.getPrompt({ name: step.name, arguments: step.arguments ?? {} }, options);
          break;
        default: throw new Error(`ts_driver: unknown op ${step.op}`);
      }
      fields = { outcome: 'result', result };
    } catch (err) {
      if (String(err?.message).startsWith('ts_driver: unknown op')) throw err;
      process.stderr.write(`ts_driver: step ${step.step}: ${err?.name}: ${err?.message}\n`);
      fields = classify(err);
    }
    if (step.progress) fields.progress = progress;
    finish(step.step, started, fields);
  }
  if (opts.lingerMs) await new Promise((r) => setTimeout(r, opts.lingerMs));
  await client.close().catch((err) => process.stderr.write(`ts_driver: close: ${err}\n`));
  emit({ step: '_callbacks', requests: served.sort() });
}

// process.stdout is asynchronous on a pipe: wait until every line written (some are megabytes) has left,
// or process.exit() drops them.
const flushed = () => new Promise((resolve) => process.stdout.write('', resolve));
main().then(
  async () => {
    await flushed();
    process.exit(0);
  },
  async (err) => {
    process.stderr.write(`ts_driver: driver error: ${err?.stack ?? err}\n`);
    await flushed();
    process.exit(1);
  },
);
