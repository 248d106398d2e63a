import { resolveHome } from '../../lib/home.js';
import { operatorRequest } from '../daemon-client.js';

/** `agentteam daemon status`: the daemon's own view as JSON; exit 3 when none runs. */
export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const res = await operatorRequest(resolveHome(), 'GET', '/api/v1/status');
  const body = res.json as { ok?: boolean; data?: unknown };
  if (res.status !== 200 || !body?.ok) {
    process.stderr.write(`agentteam: status failed: ${JSON.stringify(res.json)}\n`);
    return 1;
  }
  process.stdout.write(JSON.stringify(body.data) + '\n');
  return 0;
}
