import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { TurnService } from '../turns/service.js';

/** A person cancels or retries a turn (catalog/operator/turns.ts). */
export function turnOperatorHandlers(
  turns: TurnService,
): Pick<OperatorHandlers, 'turns.cancel' | 'turns.retry'> {
  return {
    'turns.cancel': async ({ params: { serverId, id } }) => ({
      turn: await turns.cancel(serverId, id),
    }),
    'turns.retry': async ({ params: { serverId, id } }) => ({
      turn: await turns.retry(serverId, id),
    }),
  };
}
