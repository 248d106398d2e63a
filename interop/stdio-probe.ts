import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * `node stdio-probe.js <marker> -- CMD [ARGS...]`: starts a stdio MCP server
 * (here `mcp-remote`, bridging to the daemon's HTTP route) with the official
 * TypeScript SDK client, lists its tools, calls `message_send` with the
 * marker and prints one JSON line with what came back.
 */
const [marker, sep, command, ...args] = process.argv.slice(2);
if (!marker || sep !== '--' || !command) {
  process.stderr.write('usage: stdio-probe <marker> -- CMD [ARGS...]\n');
  process.exit(2);
}
const transport = new StdioClientTransport({
  command,
  args,
  env: process.env as Record<string, string>,
  stderr: 'inherit',
});
const client = new Client({ name: 'agentteam-interop', version: '1' });
const timer = setTimeout(() => {
  process.stderr.write('stdio-probe: no answer within 60 s\n');
  process.exit(1);
}, 60_000);
try {
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const res = await client.callTool({
    name: 'message_send',
    arguments: { target: 'channel:interop', content: marker },
  });
  const sent =
    (res.structuredContent as { message?: { content?: string } } | undefined)?.message?.content ??
    null;
  process.stdout.write(
    `${JSON.stringify({ tools, isError: res.isError === true, sent, server: client.getServerVersion() })}\n`,
  );
} finally {
  clearTimeout(timer);
  await client.close().catch(() => undefined);
}
