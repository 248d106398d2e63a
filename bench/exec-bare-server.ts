import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/**
 * The baseline of the Exec throughput bench: a bare hono route on
 * @hono/node-server that parses the JSON body and answers a fixed envelope
 * of the same size class as `task get`. Prints {"url"} when listening.
 */
const TASK = {
  ok: true,
  data: {
    task: {
      id: 'task_0123456789abcdefghij',
      title: 'bench',
      description: '',
      status: 'todo',
      assignee: null,
      projectId: null,
      revision: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
  },
};
const app = new Hono();
app.post('/bare/:domain/:action', async (c) => {
  await c.req.json();
  return c.json(TASK);
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${info.port}/bare/task/get` })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
