import { resolveHome } from '../../lib/home.js';
import { sendOperator } from './message-common.js';

/** `agentteam daemon reload`: the daemon re-reads profile.json, kb.json and tools/*.json (same as SIGHUP). */
export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  return sendOperator(resolveHome(), 'daemon.reload', {}, 'daemon reload');
}
