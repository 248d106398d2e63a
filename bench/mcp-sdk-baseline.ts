import { createServer, type IncomingMessage } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

/**
 * The comparison server: the official SDK in stateless mode on node:http, as
 * its documentation shows (a new McpServer and transport per request), with
 * JSON responses and an in-memory `message_history_read` returning the same
 * page shape as the daemon's tool. Prints `{"url":...}` when listening.
 */
const messages = Array.from({ length: 20 }, (_, i) => ({
  id: `msg_bench${String(i).padStart(8, '0')}`,
  target: 'channel:bench',
  author: 'agent:bench',
  content: `benchmark message ${i}`,
  replyTo: null,
  reactions: [],
  createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
})).reverse();

const messageShape = z.object({
  id: z.string(),
  target: z.string(),
  author: z.string(),
  content: z.string(),
  replyTo: z.string().nullable(),
  reactions: z.array(z.object({ emoji: z.string(), authors: z.array(z.string()) })),
  createdAt: z.string(),
});

function getServer(): McpServer {
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  server.registerTool(
    'message_history_read',
    {
      title: 'Read message history',
      description: 'Reads the messages of one exact target, newest first.',
      inputSchema: {
        target: z.string(),
        limit: z.number().int().min(1).max(50).optional(),
        cursor: z.string().optional(),
      },
      outputSchema: {
        target: z.string(),
        messages: z.array(messageShape),
        hasMore: z.boolean(),
        nextCursor: z.string().optional(),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ target, limit }) => {
      const page = {
        target,
        messages: messages.filter((m) => m.target === target).slice(0, limit ?? 20),
        hasMore: false,
      };
      return { content: [{ type: 'text', text: JSON.stringify(page) }], structuredContent: page };
    },
  );
  return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (err) {
        reject(err);
      }
    });
    req.on('error', reject);
  });
}

const http = createServer(async (req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  try {
    const body = await readJson(req);
    const server = getServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  } catch {
    if (!res.headersSent) res.writeHead(500).end();
  }
});
http.listen(0, '127.0.0.1', () => {
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })}\n`);
});
