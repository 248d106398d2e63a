import { resolveHome } from '../../lib/home.js';
import { reportFailure, toolsRequest } from './tools-common.js';

/** `agentteam tools answer <askId> <text>`: the answer the asking tool gets, as `answered`, on its next call. */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [id, ...words] = args;
  const answer = words.join(' ');
  if (!id || answer.length === 0) {
    process.stderr.write('agentteam tools answer: usage: agentteam tools answer <askId> <text>\n');
    return 2;
  }
  const res = await toolsRequest(resolveHome(), 'POST', `/api/v1/tools/asks/${encodeURIComponent(id)}/answer`, { answer });
  if (!res) return 3;
  if (res.json?.ok !== true) return reportFailure(res.json);
  process.stdout.write(`${JSON.stringify(res.json)}\n`);
  return 0;
}
