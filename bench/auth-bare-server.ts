import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { defaultCatalog } from '../catalog/index.js';
import { pinCatalog } from '../daemon/auth/pinned-catalog.js';

/**
 * Baseline of the auth benchmark: a bare hono GET route on @hono/node-server
 * answering the same pre-serialized catalog bytes as the authenticated
 * route, so the difference is the runtime-auth middleware. Prints {"url"}.
 */
const body = pinCatalog(defaultCatalog()).body;
const app = new Hono();
app.get('/bare/catalog', (c) => c.body(body, 200, { 'content-type': 'application/json' }));
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${info.port}/bare/catalog` })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
