import { operatorRequest, readDaemonInfo } from '../daemon-client.js';

/**
 * Sends one operator request for the message commands and prints the JSON
 * envelope on stdout. Exit: 0 ok, 1 error envelope, 3 no daemon.
 */
export async function sendOperator(home: string, method: string, path: string, body: unknown, label: string): Promise<number> {
  if (!readDaemonInfo(home)) {
    process.stderr.write(`agentteam ${label}: no daemon is running for ${home} (start one with \`agentteam daemon start\`)\n`);
    return 3;
  }
  let res: { status: number; json: unknown };
  try {
    res = await operatorRequest(home, method, path, body);
  } catch (err) {
    process.stderr.write(`agentteam ${label}: cannot reach the daemon: ${err instanceof Error ? err.message : String(err)}\n`);
    return 3;
  }
  process.stdout.write(`${JSON.stringify(res.json)}\n`);
  const ok = (res.json as { ok?: unknown } | null)?.ok === true;
  if (!ok) {
    const msg = (res.json as { error?: { message?: string } } | null)?.error?.message;
    if (msg) process.stderr.write(`agentteam ${label}: ${msg}\n`);
  }
  return ok ? 0 : 1;
}

/**
 * A command line the command refuses (exit 2): the message on stderr for
 * people and, like every refusal, the JSON error envelope on stdout.
 */
export function usage(label: string, message: string): number {
  process.stdout.write(`${JSON.stringify({ ok: false, error: { code: 'usage', message } })}\n`);
  process.stderr.write(`agentteam ${label}: ${message}\n`);
  return 2;
}
