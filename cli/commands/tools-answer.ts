import { resolveHome } from '../../lib/home.js';
import { reportFailure, toolsRequest } from './tools-common.js';
import { jsonText } from '../json-text.js';
import { refuse } from '../refusal.js';

/** `agentteam tools answer <askId> <text>`: the answer the asking tool gets, as `answered`, on its next call. */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [id, ...words] = args;
  const answer = words.join(' ');
  if (!id || answer.length === 0) {
    return refuse('tools answer', 'usage', 'usage: agentteam tools answer <askId> <text>');
  }
  const res = await toolsRequest(resolveHome(), 'tools.answer', {
    params: { id },
    body: { answer },
  });
  if (typeof res === 'number') return res;
  if (res.json?.ok !== true) return reportFailure(res.json);
  process.stdout.write(`${jsonText(res.json)}\n`);
  return 0;
}
