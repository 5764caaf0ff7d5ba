// A minimal MCP server over HTTP/2 with TLS (node:http2, ALPN h2 only), for the guard's upstream tests: it
// answers `initialize` (with a session) and `tools/call` (with the HTTP version it was reached over), 202 to
// notifications. Prints `port N` once it listens.
//
//     node h2_server.mjs CERT KEY
import http2 from 'node:http2';
import fs from 'node:fs';

const [cert, key] = process.argv.slice(2);
const server = http2.createSecureServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), allowHTTP1: false });
server.on('request', (req, res) => {
  let body = '';
  req.on('data', (chunk) => { body += chunk; });
  req.on('end', () => {
    if (req.method === 'DELETE') { res.writeHead(200).end(); return; }
    if (req.method !== 'POST') { res.writeHead(405).end(); return; }
    const msg = JSON.parse(body);
    if (msg.id === undefined || msg.method === undefined) { res.writeHead(202).end(); return; }
    const headers = { 'content-type': 'application/json' };
    let result = {};
    if (msg.method === 'initialize') {
      headers['mcp-session-id'] = 'h2-session';
      result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'h2-server', version: '1' } };
    } else if (msg.method === 'tools/call') {
      result = { content: [{ type: 'text', text: `over HTTP/${req.httpVersion}` }] };
    }
    res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
