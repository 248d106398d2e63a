import { TARGET_PATTERN } from '../../catalog/mcp-tools.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';
import { serverOf } from './message-post.js';

/** `agentteam message history --target T [--server S] [--limit N] [--cursor C]`: newest first, JSON envelope on stdout. */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const target = opts.target;
  if (typeof target !== 'string' || !new RegExp(TARGET_PATTERN).test(target)) {
    return usage(
      'message history',
      '--target must be channel:<name>, dm:<handle>, thread:<messageId> or task:<taskId>',
    );
  }
  const serverId = serverOf(opts);
  if (!isEntityId(serverId)) {
    return usage('message history', `--server must be ${ENTITY_ID_RULE}`);
  }
  let limit: string | undefined;
  if (opts.limit !== undefined) {
    limit = String(opts.limit);
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 50) {
      return usage('message history', '--limit must be an integer from 1 to 50');
    }
  }
  const query = {
    serverId,
    target,
    ...(limit !== undefined ? { limit } : {}),
    ...(typeof opts.cursor === 'string' ? { cursor: opts.cursor } : {}),
  };
  return sendOperator(resolveHome(), 'messages.history', { query }, 'message history');
}
