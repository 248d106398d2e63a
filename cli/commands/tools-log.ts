import { resolveHome } from '../../lib/home.js';
import { reportFailure, toolsRequest } from './tools-common.js';
import { jsonText } from '../json-text.js';
import { visible, visibleBlock } from '../terminal-text.js';

/**
 * `agentteam tools log [--limit N] [--json]`: what declared tools showed to
 * people and asked them, oldest first, then the questions still waiting
 * (answer one with `agentteam tools answer <askId> <text>`).
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const query = opts.limit !== undefined ? { limit: String(opts.limit) } : {};
  const res = await toolsRequest(resolveHome(), 'tools.log', { query });
  if (typeof res === 'number') return res;
  if (res.json?.ok !== true) return reportFailure(res.json);
  const { events, pending } = res.json.data;
  if (opts.json === true) {
    process.stdout.write(`${jsonText(res.json)}\n`);
    return 0;
  }
  for (const e of events) {
    const kind =
      e.type === 'tool.shown'
        ? 'shown'
        : e.type === 'tool.asked'
          ? `asked ${e.askId}`
          : `answered ${e.askId}`;
    // The text is a block of its own, indented under its header line; the other fields are one line each.
    process.stdout.write(
      `${visible(e.at)} ${visible(e.agent)} ${visible(e.tool)} ${visible(kind)}:\n  ${visibleBlock(e.text, '  ')}\n`,
    );
  }
  for (const p of pending)
    process.stdout.write(
      `waiting ${visible(p.askId)} (${visible(p.agent)} ${visible(p.tool)}): ${visible(p.question)}\n`,
    );
  return 0;
}
