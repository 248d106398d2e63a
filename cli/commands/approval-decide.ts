import { resolveHome } from '../../lib/home.js';
import { sendOperator, usage } from './message-common.js';

/**
 * `agentteam approval decide ID approve|reject [--note T] [--as human:<handle>] [--for-turn]`:
 * a person decides an approval request through the operator API; `--for-turn`
 * approves a runtime's own request and every later one of its kind in that turn.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [id, decision] = args;
  if (!id || !/^appr_[0-9A-Za-z]{6,40}$/.test(id)) {
    return usage('approval decide', 'ID must be an approval id (appr_...)');
  }
  if (decision !== 'approve' && decision !== 'reject') {
    return usage('approval decide', 'the decision must be approve or reject');
  }
  if (opts.forTurn === true && decision !== 'approve') {
    return usage('approval decide', '--for-turn goes with approve');
  }
  const body = {
    decision,
    ...(opts.forTurn === true ? { scope: 'turn' as const } : {}),
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
