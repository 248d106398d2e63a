import { AUTHOR_PATTERN, TARGET_PATTERN } from '../../catalog/mcp-tools.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';
import { DEFAULT_SERVER } from '../../catalog/ids.js';

/**
 * `agentteam message post --target T --as human:<handle> [--server S] [--reply-to ID] TEXT`
 * A person writes to a target; the stored message is printed as a JSON envelope.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const target = opts.target;
  const as = opts.as;
  const text = args.join(' ');
  if (typeof target !== 'string' || !new RegExp(TARGET_PATTERN).test(target)) {
    return usage(
      'message post',
      '--target must be channel:<name>, dm:<handle>, thread:<messageId> or task:<taskId>',
    );
  }
  if (typeof as !== 'string' || !as.startsWith('human:') || !new RegExp(AUTHOR_PATTERN).test(as)) {
    return usage('message post', '--as must be human:<handle>');
  }
  if (text.length === 0) {
    return usage('message post', 'the message TEXT is missing');
  }
  const serverId = serverOf(opts);
  if (!isEntityId(serverId)) {
    return usage('message post', `--server must be ${ENTITY_ID_RULE}`);
  }
  const body = {
    serverId,
    target,
    author: as,
    content: text,
    ...(typeof opts.replyTo === 'string' ? { replyTo: opts.replyTo } : {}),
  };
  return sendOperator(resolveHome(), 'messages.post', { body }, 'message post');
}

export function serverOf(opts: Record<string, unknown>): string {
  return typeof opts.server === 'string' && opts.server.length > 0 ? opts.server : DEFAULT_SERVER;
}
