// Drives an A2A agent with the official JS SDK (npm `@a2a-js/sdk` 1.3, JSON-RPC transport) through one fixed
// scenario, and prints what it saw as one JSON object on stdout (tests/guard/test_a2a.py compares it with
// a2a_py_client.py's and with the same scenario through the guard).
//
//   node a2a_js_client.mjs BASE_URL
//
// Each step's outcome is reduced to what the SDK hands its caller: task states, artifact and status texts,
// streamed event kinds, and for an error its JSON-RPC code and data.
import { ClientFactory } from '@a2a-js/sdk/client';
import { isJsonRpcError } from '@a2a-js/sdk/errors';
import { Role, TaskState } from '@a2a-js/sdk';

const base = process.argv[2];
const texts = (parts) =>
  (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value);
let seq = 0;
const message = (text, extra = {}) => ({
  message: { messageId: `js-${process.pid}-${seq++}`, role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text }, metadata: {} }], ...extra },
});

function task(t) {
  return {
    state: TaskState[t.status?.state],
    status: texts(t.status?.message?.parts),
    artifacts: (t.artifacts ?? []).map((a) => texts(a.parts).join('')),
  };
}

async function outcome(step) {
  try {
    return { ok: await step() };
  } catch (e) {
    if (isJsonRpcError(e)) return { error: { code: e.envelopeCode, data: e.data ?? null } };
    return { failed: String(e?.name ?? 'Error') };
  }
}

const factory = new ClientFactory();
const client = await factory.createFromUrl(base);
const card = await (await fetch(new URL('/.well-known/agent-card.json', base))).json();
const out = { card: { name: card.name, interfaces: card.supportedInterfaces.map((i) => i.url) } };
let echoed;
out.echo = await outcome(async () => {
  const r = await client.sendMessage(message('echo hi'));
  echoed = r.payload?.value ?? r;
  return task(echoed);
});
out.stream = await outcome(async () => {
  const events = [];
  for await (const ev of client.sendMessageStream(message('stream 3'))) {
    const { $case, value } = ev.payload ?? {};
    if ($case === 'task') events.push(['task', TaskState[value.status?.state]]);
    else if ($case === 'statusUpdate') events.push(['status', TaskState[value.status?.state]]);
    else if ($case === 'artifactUpdate') events.push(['artifact', texts(value.artifact?.parts).join('')]);
    else if ($case === 'message') events.push(['message', texts(value.parts).join('')]);
  }
  return events;
});
out.fail = await outcome(async () => {
  const r = await client.sendMessage(message('fail'));
  return task(r.payload?.value ?? r);
});
out.get = await outcome(async () => task(await client.getTask({ id: echoed?.id })));
out.unknown = await outcome(async () => task(await client.getTask({ id: 'no-such-task' })));
out.cancel = await outcome(async () => task(await client.cancelTask({ id: echoed?.id })));
process.stdout.write(JSON.stringify(out) + '\n');
