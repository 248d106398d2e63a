import { resolveHome } from '../../lib/home.js';
import { operatorRequest, pidAlive, readDaemonInfo } from '../daemon-client.js';

const STOP_WAIT_MS = 15_000;

/** `agentteam daemon stop`: asks for an orderly stop and waits until the process is gone. */
export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const info = readDaemonInfo(home);
  const res = await operatorRequest(home, 'POST', '/api/v1/stop');
  if (res.status !== 202) {
    process.stderr.write(`agentteam: stop failed: ${JSON.stringify(res.json)}\n`);
    return 1;
  }
  const until = Date.now() + STOP_WAIT_MS;
  while (info && pidAlive(info.pid)) {
    if (Date.now() > until) {
      process.stderr.write(`agentteam: daemon (pid ${info.pid}) is still stopping\n`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  process.stdout.write(JSON.stringify({ stopped: true, pid: info?.pid ?? null }) + '\n');
  return 0;
}
