import { resolveHome } from '../../lib/home.js';
import { sendOperator } from './message-common.js';

/** `agentteam daemon status`: the daemon's own view, as the envelope it answered; exit 3 when none runs. */
export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  return sendOperator(resolveHome(), 'daemon.status', {}, 'daemon status');
}
