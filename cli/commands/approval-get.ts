import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';

/** `agentteam approval get ID`: what was asked, by whom, and its status. */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [id] = args;
  if (!id || !/^appr_[0-9A-Za-z]{6,40}$/.test(id)) {
    return usage('approval get', 'ID must be an approval id (appr_...)');
  }
  return sendOperator(resolveHome(), 'approvals.get', { params: { id } }, 'approval get');
}
