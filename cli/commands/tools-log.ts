import { resolveHome } from '../../lib/home.js';
import { reportFailure, toolsRequest } from './tools-common.js';

interface Event {
  seq: number;
  type: string;
  at: string;
  serverId: string;
  agent: string;
  tool: string;
  text: string;
  askId?: string;
}

/**
 * `agentteam tools log [--limit N] [--json]`: what declared tools showed to
 * people and asked them, oldest first, then the questions still waiting
 * (answer one with `agentteam tools answer <askId> <text>`).
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const q = new URLSearchParams();
  if (opts.limit !== undefined) q.set('limit', String(opts.limit));
  const res = await toolsRequest(resolveHome(), 'GET', `/api/v1/tools/log${q.size > 0 ? `?${q}` : ''}`);
  if (!res) return 3;
  if (res.json?.ok !== true) return reportFailure(res.json);
  const { events, pending } = res.json.data as { events: Event[]; pending: { askId: string; agent: string; tool: string; question: string }[] };
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(res.json.data)}\n`);
    return 0;
  }
  for (const e of events) {
    const kind = e.type === 'tool.shown' ? 'shown' : e.type === 'tool.asked' ? `asked ${e.askId}` : `answered ${e.askId}`;
    process.stdout.write(`${e.at} ${e.agent} ${e.tool} ${kind}:\n${e.text.replace(/^/gm, '  ')}\n`);
  }
  for (const p of pending) process.stdout.write(`waiting ${p.askId} (${p.agent} ${p.tool}): ${p.question}\n`);
  return 0;
}
