import { CLIENT_KEY_HEADER } from '../clienttools/clients.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { StdioSessions } from '../turns/stdio-sessions.js';

/** A stdio child's sessions and runs (catalog/operator/stdio-sessions.ts); each call proves the child with its key. */
export function stdioSessionHandlers(
  sessions: StdioSessions,
): Pick<OperatorHandlers, 'stdio.sessionCreate' | 'stdio.turnStart' | 'stdio.turnCancel'> {
  return {
    'stdio.sessionCreate': ({ body }, c) => {
      const { client_id, ...rest } = body;
      return sessions.create(client_id, c.req.header(CLIENT_KEY_HEADER), rest);
    },
    'stdio.turnStart': ({ params, body }, c) =>
      sessions.start(body.client_id, c.req.header(CLIENT_KEY_HEADER), params.sessionId, body.text),
    'stdio.turnCancel': ({ params, body }, c) =>
      sessions.cancel(
        body.client_id,
        c.req.header(CLIENT_KEY_HEADER),
        params.sessionId,
        params.runId,
      ),
  };
}
