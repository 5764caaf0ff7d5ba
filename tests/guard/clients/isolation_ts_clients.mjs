// Many official TypeScript SDK clients (@modelcontextprotocol/sdk 1.32.2) at once, each with a Streamable HTTP
// transport of its own (2025-11-25: a session each), for test_isolation_sdk.py: the counterpart of
// isolation_py_clients.py, with the same spec file and the same output.
//
//     node isolation_ts_clients.mjs --url URL --spec SPEC.json [--per-call-timeout-ms N]
//
// Each client runs its rounds one after the other and the calls of a round all at once, answers sampling with
// its `sampling_reply` (recording the request), declines elicitations (recorded). The SDK numbers each client's
// requests from 0, so ids repeat across clients. One JSON line per client on stdout; nothing is judged here.
const sdk = (p) => import(new URL(`../node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`, import.meta.url));
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { CreateMessageRequestSchema, ElicitRequestSchema, McpError } = await sdk('types.js');
import { readFileSync } from 'node:fs';

function parseArgs(argv) {
  const opts = { url: '', spec: '', perCallTimeoutMs: 20000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--url') opts.url = argv[++i];
    else if (a === '--spec') opts.spec = argv[++i];
    else if (a === '--per-call-timeout-ms') opts.perCallTimeoutMs = Number(argv[++i]);
    else throw new Error(`isolation_ts_clients: unknown argument ${a}`);
  }
  if (!opts.url || !opts.spec) throw new Error('isolation_ts_clients: need --url URL --spec FILE');
  return opts;
}

const describe = (err) =>
  err instanceof McpError
    ? { code: err.code, message: err.message, data: err.data ?? null }
    : { exception: `${err?.name ?? typeof err}: ${String(err?.message ?? err).split('\n')[0].slice(0, 500)}` };

async function oneClient(url, spec, timeout) {
  const record = { client: spec.client, sdk: 'typescript', protocol: null, connect: 'ok', calls: [], sampling: [],
    elicitation: [], transport_errors: [] };
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: `isolation-ts-${spec.client}`, version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    record.sampling.push(JSON.stringify(request.params));
    return { role: 'assistant', model: 'isolation-model', stopReason: 'endTurn',
      content: { type: 'text', text: spec.sampling_reply } };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    record.elicitation.push(JSON.stringify(request.params));
    return { action: 'decline' };
  });
  client.onerror = (err) => record.transport_errors.push(`${err?.name ?? 'Error'}: ${String(err?.message ?? err).split('\n')[0].slice(0, 300)}`);
  try {
    await client.connect(transport, { timeout });
  } catch (err) {
    record.connect = describe(err);
    return record;
  }
  record.protocol = transport.protocolVersion ?? null;
  try {
    const rounds = [...new Set(spec.calls.map((c) => c.round))].sort((a, b) => a - b);
    for (const r of rounds) {
      await Promise.all(spec.calls.filter((c) => c.round === r).map(async (call) => {
        const entry = { name: call.name, round: call.round, progress: [] };
        record.calls.push(entry);
        const options = { timeout };
        if (call.progress) {
          options.onprogress = (p) => entry.progress.push([p.progress, p.total ?? null, p.message ?? null]);
          options.resetTimeoutOnProgress = true;
        }
        try {
          const result = await client.callTool({ name: call.name, arguments: call.arguments }, undefined, options);
          entry.outcome = 'result';
          entry.text = (result.content ?? []).map((c) => c.text ?? '').join('\n');
          entry.structured = result.structuredContent ?? null;
          entry.is_error = Boolean(result.isError);
        } catch (err) {
          entry.outcome = 'error';
          entry.error = describe(err);
        }
      }));
    }
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
  return record;
}

const opts = parseArgs(process.argv.slice(2));
const specs = JSON.parse(readFileSync(opts.spec, 'utf8'));
const records = await Promise.all(specs.map((spec) => oneClient(opts.url, spec, opts.perCallTimeoutMs)));
for (const record of records.sort((a, b) => a.client - b.client)) process.stdout.write(JSON.stringify(record) + '\n');
await new Promise((resolve) => process.stdout.write('', resolve));
process.exit(0);
