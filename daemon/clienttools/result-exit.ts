import type { CallContext } from '../tools/registry.js';
import type { CallOutcome } from './types.js';

/**
 * The one place a client tool's result leaves the daemon for the agent, as a
 * serialized MCP CallToolResult. The app's content blocks pass verbatim
 * (text and images alike); failures become tool errors "<code>: <message>".
 * The daemon's result gate (masking, bounding) is applied here and nowhere
 * else for client tools.
 */
export function clientResultFrame(outcome: CallOutcome, _ctx: CallContext): string {
  if (outcome.ok) return `{"content":${JSON.stringify(outcome.content)},"isError":false}`;
  return toolErrorFrame(outcome.code, outcome.message);
}

export function toolErrorFrame(code: string, message: string): string {
  return JSON.stringify({ content: [{ type: 'text', text: `${code}: ${message}` }], isError: true });
}
