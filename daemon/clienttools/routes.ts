import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { ClientToolBroker } from './broker.js';
import { CLIENT_KEY_HEADER } from './clients.js';
import { clientIdOf, decodeRegister, decodeResult } from './validate.js';
import type { ClientToolSpec } from './types.js';
import type { ResultGate } from '../results/gate.js';

/**
 * The app side of client tools over HTTP, rows of catalog/operator/client-tools.ts
 * (the operator API's dispatcher has checked the token and read the body).
 * Every handler: decode, one broker call, the usual envelope; errors are
 * ExecErrors the app's onError turns into envelopes with the code's status. Answers are screened by the
 * result gate as they are made (`gate.ok`): the claim and the result are on
 * every relayed call's path, and the gate's middleware would otherwise read
 * each answer back out of its Response to screen it.
 */

interface ClientToolRouteDeps {
  readonly broker: ClientToolBroker;
  readonly gate: ResultGate;
  /** Throws name_conflict when a group's names are taken outside the group. */
  readonly checkNames: (group: string, tools: readonly ClientToolSpec[]) => void;
}

export function clientToolHandlers(
  deps: ClientToolRouteDeps,
): Pick<
  OperatorHandlers,
  | 'clientTools.register'
  | 'clientTools.clients'
  | 'clientTools.requests'
  | 'clientTools.claim'
  | 'clientTools.result'
> {
  const { broker, gate } = deps;
  return {
    'clientTools.register': ({ body }) =>
      gate.ok(broker.register(decodeRegister(body), deps.checkNames)),
    // Operator token only (as every /api/v1 route): the connected apps and their groups, for the console.
    'clientTools.clients': () => gate.ok({ clients: broker.connected() }),
    'clientTools.requests': ({ query: q }, c) => {
      // Without client_id: ids only (no arguments, no agent), as a stream that is not the provider sees them.
      if (q.client_id === undefined)
        return gate.ok({ requests: broker.listIds(q.pending === '1') });
      const clientId = clientIdOf({ client_id: q.client_id });
      return gate.ok({
        requests: broker.list(clientId, q.pending === '1', c.req.header(CLIENT_KEY_HEADER)),
      });
    },
    'clientTools.claim': ({ params, body }, c) =>
      gate.ok(broker.claim(params.id, clientIdOf(body), c.req.header(CLIENT_KEY_HEADER))),
    'clientTools.result': ({ params, body }, c) =>
      gate.ok(broker.result(params.id, decodeResult(body), c.req.header(CLIENT_KEY_HEADER))),
  };
}
