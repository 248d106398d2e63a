import { resolveHome } from '../../lib/home.js';
import { daemonOperator, pidAlive, readDaemonInfo } from '../daemon-client.js';
import { jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';

const STOP_WAIT_MS = 15_000;

/** `agentteam daemon stop`: asks for an orderly stop, waits until the process is gone, prints `{"ok":true,"data":{"stopped":true,"pid":N}}`. */
export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const info = readDaemonInfo(home);
  if (!info) return noDaemon('daemon stop', home);
  const res = await daemonOperator(home).send('daemon.stop', {});
  if (res.status !== 202) {
    const error = (res.envelope as { error?: { message?: unknown } } | null)?.error;
    return refuse(
      'daemon stop',
      'upstream_error',
      `stop failed: ${typeof error?.message === 'string' ? error.message : `HTTP ${res.status}`}`,
    );
  }
  const until = Date.now() + STOP_WAIT_MS;
  while (pidAlive(info.pid)) {
    if (Date.now() > until)
      return refuse(
        'daemon stop',
        'busy',
        `the daemon (pid ${info.pid}) is still stopping`,
        'Run `agentteam daemon status` in a moment.',
      );
    await new Promise((r) => setTimeout(r, 25));
  }
  process.stdout.write(`${jsonText({ ok: true, data: { stopped: true, pid: info.pid } })}\n`);
  return 0;
}
