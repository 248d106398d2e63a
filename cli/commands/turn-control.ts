import { ID_PATTERN } from '../../catalog/common.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';
import { serverOf } from './message-post.js';

/**
 * `agentteam turn cancel ID` and `agentteam turn retry ID`: a person stops a
 * queued or running turn, or queues a new one for the messages of an ended
 * one. The turn is printed as a JSON envelope.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const verb = opts.verb === 'retry' ? 'retry' : 'cancel';
  const command = `turn ${verb}`;
  const [id] = args;
  if (!id || !/^turn_/.test(id) || !new RegExp(ID_PATTERN).test(id))
    return usage(command, 'ID must be a turn id (turn_...)');
  const serverId = serverOf(opts);
  if (!isEntityId(serverId)) return usage(command, `--server must be ${ENTITY_ID_RULE}`);
  return sendOperator(
    resolveHome(),
    verb === 'retry' ? 'turns.retry' : 'turns.cancel',
    { params: { serverId, id } },
    command,
  );
}
