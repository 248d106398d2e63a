import type { OperatorRouteName } from '../../catalog/operator/table.js';
import type { OperatorCallInput } from '../../lib/operator-client.js';
import { daemonOperator, readDaemonInfo } from '../daemon-client.js';
import { jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';

/**
 * Sends one operator request for the message commands and prints the JSON
 * envelope on stdout. Exit: 0 ok, 1 error envelope, 3 no daemon.
 */
export async function sendOperator<N extends OperatorRouteName>(
  home: string,
  name: N,
  input: OperatorCallInput<N>,
  label: string,
): Promise<number> {
  if (!readDaemonInfo(home)) return noDaemon(label, home);
  let res: { status: number; json: unknown };
  try {
    const { status, envelope } = await daemonOperator(home).send(name, input);
    res = { status, json: envelope };
  } catch (err) {
    return refuse(
      label,
      'unavailable',
      `cannot reach the daemon: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  process.stdout.write(`${jsonText(res.json)}\n`);
  const ok = (res.json as { ok?: unknown } | null)?.ok === true;
  if (!ok) {
    const msg = (res.json as { error?: { message?: string } } | null)?.error?.message;
    if (msg) process.stderr.write(`agentteam ${label}: ${visible(msg)}\n`);
  }
  return ok ? 0 : 1;
}

/**
 * A command line the command refuses (exit 2): the message on stderr for
 * people and, like every refusal, the JSON error envelope on stdout.
 */
export function usage(label: string, message: string): number {
  return refuse(label, 'usage', message);
}
