import { AUTHOR_PATTERN, TARGET_PATTERN } from '../../catalog/mcp-tools.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { resolveHome } from '../../lib/home.js';
import { sendOperator } from './message-common.js';

/**
 * `agentteam message post --target T --as human:<handle> [--server S] [--reply-to ID] TEXT`
 * A person writes to a target; the stored message is printed as a JSON envelope.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const target = opts.target;
  const as = opts.as;
  const text = args.join(' ');
  if (typeof target !== 'string' || !new RegExp(TARGET_PATTERN).test(target)) {
    process.stderr.write('agentteam message post: --target must be channel:<name>, dm:<handle>, thread:<messageId> or task:<taskId>\n');
    return 2;
  }
  if (typeof as !== 'string' || !as.startsWith('human:') || !new RegExp(AUTHOR_PATTERN).test(as)) {
    process.stderr.write('agentteam message post: --as must be human:<handle>\n');
    return 2;
  }
  if (text.length === 0) {
    process.stderr.write('agentteam message post: the message TEXT is missing\n');
    return 2;
  }
  const serverId = serverOf(opts);
  if (!isEntityId(serverId)) {
    process.stderr.write(`agentteam message post: --server must be ${ENTITY_ID_RULE}\n`);
    return 2;
  }
  const body: Record<string, unknown> = { serverId, target, author: as, content: text };
  if (typeof opts.replyTo === 'string') body.replyTo = opts.replyTo;
  return sendOperator(resolveHome(), 'POST', '/api/v1/messages', body, 'message post');
}

export function serverOf(opts: Record<string, unknown>): string {
  return typeof opts.server === 'string' && opts.server.length > 0 ? opts.server : 'local';
}
