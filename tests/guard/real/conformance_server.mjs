// A stdio MCP server that implements what the server scenarios of `@modelcontextprotocol/conformance` 0.1.16
// call (the `test_*` tools, the `test://` resources, the `test_*` prompts, completion, logging, subscriptions),
// written here from the scenario definitions (each scenario's description states what it calls and expects).
// The package's own example server is not published on any registry, hence this one.
//
//     node conformance_server.mjs              (stdio)
//     node conformance_server.mjs --http PORT  (Streamable HTTP at http://127.0.0.1:PORT/mcp, the SDK's own)
//
// Built on the official TypeScript SDK's low-level `Server` (1.32.2, from tests/guard/node_modules) and its
// `StdioServerTransport`, so the tool listing carries exactly the JSON Schema the scenarios look for.
// The conformance suite reaches it through supergateway (stdio -> Streamable HTTP), with or without
// `jsonrpc-errors guard` in between: see test_conformance.py.
const sdk = (p) => import(new URL(`../node_modules/@modelcontextprotocol/sdk/dist/esm/${p}`, import.meta.url));
const { Server } = await sdk('server/index.js');
const { StdioServerTransport } = await sdk('server/stdio.js');
const T = await sdk('types.js');

// 1x1 PNG (a red pixel) and a 1-sample WAV: the "minimal test image / audio" the scenarios ask for.
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = Buffer.concat([
  Buffer.from('RIFF'), Buffer.from([38, 0, 0, 0]), Buffer.from('WAVEfmt '),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data'), Buffer.from([2, 0, 0, 0, 0, 0]),
]).toString('base64');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const noArgs = { type: 'object', properties: {} };

const TOOLS = [
  { name: 'test_simple_text', description: 'Returns a simple text', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Returns an image', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Returns audio', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Returns an embedded resource', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Returns text, image and resource', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Logs three messages while it runs', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails', inputSchema: noArgs },
  { name: 'test_reconnection', description: 'Takes a moment, then answers', inputSchema: noArgs },
  {
    name: 'test_sampling', description: 'Asks the client to sample',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation', description: 'Asks the user for input',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with defaults', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with enum variants', inputSchema: noArgs },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
];

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
];

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments', description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource', description: 'A prompt with an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

// One server per connection: the stdio transport's, or one per Streamable HTTP session.
function makeServer() {
  const server = new Server(
    { name: 'conformance-stdio-server', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
        prompts: { listChanged: false },
        logging: {},
        completions: {},
      },
    },
  );
  const subscriptions = new Set();

  const text = (t) => ({ content: [{ type: 'text', text: t }] });

  async function callTool(request, extra) {
    const name = request.params.name;
    const args = request.params.arguments ?? {};
    const caps = server.getClientCapabilities() ?? {};
    switch (name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return {
          content: [{
            type: 'resource',
            resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
          }],
        };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
            },
          ],
        };
      case 'test_tool_with_logging': {
        const log = (data) => server.sendLoggingMessage({ level: 'info', logger: 'conformance', data });
        await log('Tool execution started');
        await sleep(50);
        await log('Tool processing data');
        await sleep(50);
        await log('Tool execution completed');
        return text('Tool with logging executed successfully');
      }
      case 'test_tool_with_progress': {
        const token = request.params._meta?.progressToken;
        for (const [i, progress] of [0, 50, 100].entries()) {
          if (i) await sleep(50);
          if (token !== undefined) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
          }
        }
        return text('Tool with progress executed successfully');
      }
      case 'test_error_handling':
        return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
      case 'test_reconnection':
        await sleep(100);
        return text('Reconnection test completed');
      case 'test_sampling': {
        if (!caps.sampling) return { isError: true, content: [{ type: 'text', text: 'The client does not support sampling' }] };
        const result = await extra.sendRequest(
          {
            method: 'sampling/createMessage',
            params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt ?? '') } }], maxTokens: 100 },
          },
          T.CreateMessageResultSchema,
        );
        const reply = result.content?.type === 'text' ? result.content.text : JSON.stringify(result.content);
        return text(`LLM response: ${reply}`);
      }
      case 'test_elicitation': {
        if (!caps.elicitation) return { isError: true, content: [{ type: 'text', text: 'The client does not support elicitation' }] };
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: String(args.message ?? ''),
              requestedSchema: {
                type: 'object',
                properties: {
                  username: { type: 'string', description: "User's response" },
                  email: { type: 'string', description: "User's email address" },
                },
                required: ['username', 'email'],
              },
            },
          },
          T.ElicitResultSchema,
        );
        return text(`User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case 'test_elicitation_sep1034_defaults': {
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: 'Please review and update the form fields with defaults',
              requestedSchema: {
                type: 'object',
                properties: {
                  name: { type: 'string', description: 'User name', default: 'John Doe' },
                  age: { type: 'integer', description: 'User age', default: 30 },
                  score: { type: 'number', description: 'User score', default: 95.5 },
                  status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
                  verified: { type: 'boolean', description: 'Verification status', default: true },
                },
                required: [],
              },
            },
          },
          T.ElicitResultSchema,
        );
        return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case 'test_elicitation_sep1330_enums': {
        const result = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: 'Please choose among the enum variants',
              requestedSchema: {
                type: 'object',
                properties: {
                  untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
                  titledSingle: {
                    type: 'string',
                    oneOf: [
                      { const: 'value1', title: 'First Option' },
                      { const: 'value2', title: 'Second Option' },
                      { const: 'value3', title: 'Third Option' },
                    ],
                  },
                  legacyEnum: {
                    type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'],
                  },
                  untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
                  titledMulti: {
                    type: 'array',
                    items: {
                      anyOf: [
                        { const: 'value1', title: 'First Choice' },
                        { const: 'value2', title: 'Second Choice' },
                        { const: 'value3', title: 'Third Choice' },
                      ],
                    },
                  },
                },
                required: [],
              },
            },
          },
          T.ElicitResultSchema,
        );
        return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
      }
      case 'json_schema_2020_12_tool':
        return text(`Received: ${JSON.stringify(args)}`);
      default:
        throw new T.McpError(T.ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
  }

  server.setRequestHandler(T.ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(T.CallToolRequestSchema, callTool);
  server.setRequestHandler(T.ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(T.ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{
      uriTemplate: 'test://template/{id}/data', name: 'template-data', description: 'A resource template', mimeType: 'application/json',
    }],
  }));
  server.setRequestHandler(T.ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (uri === 'test://static-text') {
      return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    }
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG }] };
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content.' }] };
    const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
    if (m) {
      return {
        contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }],
      };
    }
    throw new T.McpError(-32002, `Resource not found: ${uri}`, { uri });
  });
  server.setRequestHandler(T.SubscribeRequestSchema, async (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(T.UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler(T.ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(T.GetPromptRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'test_simple_prompt':
        return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
      case 'test_prompt_with_arguments':
        return {
          messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }],
        };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            {
              role: 'user',
              content: { type: 'resource', resource: { uri: args.resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
            },
            { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
          ],
        };
      case 'test_prompt_with_image':
        return {
          messages: [
            { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
          ],
        };
      default:
        throw new T.McpError(T.ErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    }
  });
  server.setRequestHandler(T.CompleteRequestSchema, async (request) => {
    const value = String(request.params.argument?.value ?? '');
    const values = ['paris', 'park', 'party'].filter((v) => v.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

const httpAt = process.argv.indexOf('--http');
if (httpAt < 0) {
  await makeServer().connect(new StdioServerTransport());
} else {
  await serveHttp(Number(process.argv[httpAt + 1]));
}

// Streamable HTTP, natively (the SDK's transport, sessions of 2025-11-25): what the conformance suite and
// `jsonrpc-errors guard --upstream` reach over HTTP. Host headers are checked (DNS rebinding protection).
async function serveHttp(port) {
  const http = await import('node:http');
  const { randomUUID } = await import('node:crypto');
  const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
  const transports = new Map();
  const refuse = (res, status, message) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
  };
  const listener = http.createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports.get(sid) : undefined;
    if (sid && !transport) return refuse(res, 404, 'Session not found');
    if (!transport) {
      if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: no session');
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, created),
        enableDnsRebindingProtection: true,
        allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
      });
      created.onclose = () => created.sessionId && transports.delete(created.sessionId);
      await makeServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  listener.listen(port, '127.0.0.1', () => console.error(`conformance server listening on ${port}`));
}

