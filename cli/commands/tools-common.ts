import type { OperatorRouteName } from '../../catalog/operator/table.js';
import type { OperatorCallInput, OperatorEnvelope } from '../../lib/operator-client.js';
import { daemonOperator, readDaemonInfo } from '../daemon-client.js';
import { jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';

/** An answer's envelope as a failure report reads it. */
type Envelope = { ok?: boolean; error?: { message?: unknown } } | null;

/** One operator request for the tools commands; a number (the exit status, after the envelope) when no daemon answers. */
export async function toolsRequest<N extends OperatorRouteName>(
  home: string,
  name: N,
  input: OperatorCallInput<N>,
): Promise<{ status: number; json: OperatorEnvelope<N> } | number> {
  if (!readDaemonInfo(home)) return noDaemon('tools', home);
  try {
    const { status, envelope } = await daemonOperator(home).send(name, input);
    return { status, json: envelope };
  } catch (err) {
    return refuse(
      'tools',
      'unavailable',
      `cannot reach the daemon: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** A failed envelope: printed on stdout as the daemon sent it, its message on stderr; returns the exit status. */
export function reportFailure(json: Envelope): number {
  process.stdout.write(`${jsonText(json)}\n`);
  process.stderr.write(
    `agentteam tools: ${visible(String(json?.error?.message ?? 'the daemon refused the request'))}\n`,
  );
  return 1;
}
