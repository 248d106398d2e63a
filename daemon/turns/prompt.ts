import { LIMITS } from '../../catalog/limits.js';
import type { AgentConfig } from '../profile/types.js';
import type { MessageText } from '../store/turn-lookup.js';

/**
 * The text a turn gives the runtime: who the agent is, the one exact target
 * to answer, and the messages oldest first with their ids and authors.
 * Message text is inlined up to LIMITS.turnPromptTextBytes; the rest is
 * named by id with the read that fetches it, never cut mid-message.
 */
export function turnPrompt(
  agent: AgentConfig,
  target: string,
  messages: readonly MessageText[],
  missing: readonly string[] = [],
): string {
  const last = messages.at(-1);
  const lines = [
    `You are ${agent.displayName} (agent id ${agent.id}) in an agentteam team.`,
    `${messages.length === 1 ? 'A person wrote' : `People wrote ${messages.length} messages`} to you on ${target}.`,
    `Answer with the MCP tool message_send to exactly this target: ${target}` +
      (last ? `, with replyTo set to ${last.id}.` : '.'),
    '',
    'Messages, oldest first:',
  ];
  let budget = LIMITS.turnPromptTextBytes;
  const deferred: string[] = [];
  for (const m of messages) {
    const bytes = Buffer.byteLength(m.content);
    const head = `[${m.id}] ${m.author} at ${new Date(m.createdAt).toISOString()}:`;
    if (bytes <= budget) {
      budget -= bytes;
      lines.push(head, m.content, '');
    } else {
      deferred.push(m.id);
      lines.push(`${head} (not inlined: ${bytes} bytes)`, '');
    }
  }
  if (deferred.length > 0)
    lines.push(
      `Read the messages not inlined (${deferred.join(', ')}) with message_history_read on ${target}.`,
    );
  if (missing.length > 0)
    lines.push(`These messages were deleted before the turn started: ${missing.join(', ')}.`);
  return `${lines.join('\n')}\n`;
}
