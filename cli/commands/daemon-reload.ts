import { resolveHome } from '../../lib/home.js';
import { operatorRequest } from '../daemon-client.js';

/** `agentteam daemon reload`: the daemon re-reads profile.json, kb.json and tools/*.json (same as SIGHUP). */
export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const res = await operatorRequest(resolveHome(), 'POST', '/api/v1/reload');
  process.stdout.write(JSON.stringify(res.json) + '\n');
  return res.status === 200 ? 0 : 1;
}
