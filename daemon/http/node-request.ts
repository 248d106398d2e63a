import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';

/**
 * The Node request behind a hono context: @hono/node-server puts it in
 * `c.env.incoming`. Absent when the app is called with a web Request
 * (`app.request` in tests, `app.fetch` in process), where only the web body exists.
 */
export function nodeRequestOf(c: Pick<Context, 'env'>): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}
