import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';

/**
 * `agentteam approval decide ID approve|reject [--note T] [--as human:<handle>]`:
 * a person decides an agent's approval request through the operator API.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [id, decision] = args;
  if (!id || !/^appr_[0-9A-Za-z]{6,40}$/.test(id)) {
    return usage('approval decide', 'ID must be an approval id (appr_...)');
  }
  if (decision !== 'approve' && decision !== 'reject') {
    return usage('approval decide', 'the decision must be approve or reject');
  }
  const body = {
    decision,
    ...(typeof opts.note === 'string' ? { note: opts.note } : {}),
    ...(typeof opts.as === 'string' ? { decidedBy: opts.as } : {}),
  } as const;
  return sendOperator(
    resolveHome(),
    'approvals.decide',
    { params: { id }, body },
    'approval decide',
  );
}
