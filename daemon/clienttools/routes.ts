import type { Hono } from 'hono';
import type { Clock } from '../../lib/clock.js';
import { readJsonBody } from '../http/json-body.js';
import type { ClientToolBroker } from './broker.js';
import { CLIENT_KEY_HEADER } from './clients.js';
import { clientIdOf, decodeRegister, decodeResult } from './validate.js';
import type { ClientToolSpec } from './types.js';
import type { ResultGate } from '../results/gate.js';
import type { RuntimeEnv } from '../auth/principal.js';

/**
 * The app side of client tools over HTTP, under /api/v1/client-tools (the
 * operator-token check on /api/v1 runs first). Every handler: decode, one
 * broker call, the usual envelope; errors are ExecErrors the app's onError
 * turns into envelopes with the code's status. Answers are screened by the
 * result gate as they are made (`gate.ok`): the claim and the result are on
 * every relayed call's path, and the gate's middleware would otherwise read
 * each answer back out of its Response to screen it.
 */

/** A result may carry images: a larger body than the other routes. */
const RESULT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

interface ClientToolRouteDeps {
  readonly clock: Clock;
  readonly broker: ClientToolBroker;
  readonly gate: ResultGate;
  /** Throws name_conflict when a group's names are taken outside the group. */
  readonly checkNames: (group: string, tools: readonly ClientToolSpec[]) => void;
}

export function registerClientToolRoutes(app: Hono<RuntimeEnv>, deps: ClientToolRouteDeps): void {
  const { broker, clock, gate } = deps;
  app.post('/api/v1/client-tools', async (c) => {
    const body = decodeRegister(await readJsonBody(c, clock));
    return gate.ok(broker.register(body, deps.checkNames));
  });
  // Operator token only (as every /api/v1 route): the connected apps and their groups, for the console.
  app.get('/api/v1/client-tools/clients', () => gate.ok({ clients: broker.connected() }));
  app.get('/api/v1/client-tools/requests', (c) => {
    const q = c.req.query();
    // Without client_id: ids only (no arguments, no agent), as a stream that is not the provider sees them.
    if (q.client_id === undefined) return gate.ok({ requests: broker.listIds(q.pending === '1') });
    const clientId = clientIdOf({ client_id: q.client_id });
    return gate.ok({
      requests: broker.list(clientId, q.pending === '1', c.req.header(CLIENT_KEY_HEADER)),
    });
  });
  app.post('/api/v1/client-tools/requests/:id/claim', async (c) => {
    const clientId = clientIdOf(await readJsonBody(c, clock));
    return gate.ok(broker.claim(c.req.param('id'), clientId, c.req.header(CLIENT_KEY_HEADER)));
  });
  app.post('/api/v1/client-tools/requests/:id/result', async (c) => {
    const body = decodeResult(await readJsonBody(c, clock, RESULT_BODY_LIMIT_BYTES));
    return gate.ok(broker.result(c.req.param('id'), body, c.req.header(CLIENT_KEY_HEADER)));
  });
}
