/**
 * A stdio MCP server that forwards every JSON-RPC line to the agentteam MCP
 * route over HTTP, reading the token file for each request. It is for a
 * runtime that reads a header only once (OpenCode substitutes `{file:...}`
 * when it loads its config), so a rotated token reaches it anyway. The
 * script is plain Node with no imports beyond node: built-ins, run by the
 * daemon's own Node binary; the route URL and token path are baked in.
 */
export function renderStdioBridge(mcpUrl: string, tokenFile: string): string {
  return `// Written by agentteam: stdio <-> ${mcpUrl.replace(/[\r\n]/g, '')}; removed with the runtime authorization.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const URL_ = ${JSON.stringify(mcpUrl)};
const TOKEN_FILE = ${JSON.stringify(tokenFile)};
let version = null;
let pending = 0;
let ended = false;
const out = (msg) => process.stdout.write(JSON.stringify(msg) + '\\n');
const fail = (id, message) => { if (id !== undefined && id !== null) out({ jsonrpc: '2.0', id, error: { code: -32000, message } }); };
async function forward(line) {
  let msg;
  try { msg = JSON.parse(line); } catch { return out({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }); }
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  try { headers.authorization = 'Bearer ' + readFileSync(TOKEN_FILE, 'utf8').trim(); } catch (e) { return fail(msg.id, 'agentteam token file unreadable: ' + e.message); }
  // A 2026-07-28 message carries its version in _meta; over HTTP that revision also wants it, the
  // method and the tool name mirrored in headers (a name outside plain ASCII in the Base64 sentinel form).
  const modern = msg && msg.params && msg.params._meta && msg.params._meta['io.modelcontextprotocol/protocolVersion'];
  if (typeof modern === 'string') {
    headers['mcp-protocol-version'] = modern;
    if (typeof msg.method === 'string') headers['mcp-method'] = msg.method;
    const name = msg.params.name ?? msg.params.uri;
    if (typeof name === 'string') headers['mcp-name'] = /^[\x20-\x7e]*$/.test(name) ? name : '=?base64?' + Buffer.from(name).toString('base64') + '?=';
  } else if (version) headers['mcp-protocol-version'] = version;
  let res;
  try { res = await fetch(URL_, { method: 'POST', headers, body: line }); } catch (e) { return fail(msg.id, 'agentteam daemon unreachable: ' + e.message); }
  const text = await res.text();
  if (res.status === 202 || text.length === 0) return;
  const type = res.headers.get('content-type') || '';
  const bodies = type.startsWith('text/event-stream')
    ? text.split('\\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
    : [text];
  for (const b of bodies) {
    let reply;
    try { reply = JSON.parse(b); } catch { fail(msg.id, 'HTTP ' + res.status + ': ' + b.slice(0, 500)); continue; }
    if (msg.method === 'initialize' && reply.result && typeof reply.result.protocolVersion === 'string') version = reply.result.protocolVersion;
    out(reply);
  }
}
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  pending++;
  forward(line).finally(() => { pending--; if (ended && pending === 0) process.exit(0); });
});
rl.on('close', () => { ended = true; if (pending === 0) process.exit(0); });
`;
}
