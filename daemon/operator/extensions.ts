import type { Context, Hono } from 'hono';
import { readJsonBody } from '../http/json-body.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { ExtensionStore } from '../extensions/store.js';
import { pinCatalog } from '../auth/pinned-catalog.js';
import type { RuntimeEnv } from '../auth/principal.js';

function fail(c: Context, err: unknown): Response {
  return c.json(
    { ok: false, error: errorBody(err) },
    (err instanceof ExecError ? err.status : 500) as 400,
  );
}

/**
 * Extension management under /api/v1 (operator token first):
 * `POST /api/v1/extensions {definition: "<file text>"}`, `GET /api/v1/extensions`,
 * `DELETE /api/v1/extensions/{name}`. The text is stored as sent, so its
 * digest is the digest of the file the operator installed.
 * `GET /api/v1/catalog`: the catalog a runtime started now would pin
 * (built-ins and installed extensions), the body of the runtime's own
 * `GET {base}/catalog`, so operator help renders extensions the same way.
 */
export function registerExtensionOperatorRoutes(
  app: Hono<RuntimeEnv>,
  extensions: ExtensionStore,
): void {
  app.post('/api/v1/extensions', async (c) => {
    try {
      const body = await readJsonBody(c);
      const definition = (body as { definition?: unknown } | null)?.definition;
      if (typeof definition !== 'string')
        throw new ExecError(
          'invalid_request',
          'the body must be {"definition": "<the definition file text>"}',
        );
      return c.json({ ok: true, data: { extension: extensions.install(definition) } }, 201);
    } catch (err) {
      return fail(c, err);
    }
  });
  app.get('/api/v1/extensions', (c) =>
    c.json({
      ok: true,
      data: { extensions: extensions.list(), catalogVersion: extensions.current().catalogVersion },
    }),
  );
  app.get('/api/v1/catalog', (c) =>
    c.body(pinCatalog(extensions.current()).body, 200, { 'content-type': 'application/json' }),
  );
  app.delete('/api/v1/extensions/:name', (c) => {
    try {
      return c.json({ ok: true, data: extensions.remove(c.req.param('name')) });
    } catch (err) {
      return fail(c, err);
    }
  });
}
