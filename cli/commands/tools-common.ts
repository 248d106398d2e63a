import { operatorRequest, readDaemonInfo } from '../daemon-client.js';
import { jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';

/** The daemon's envelope as the tools commands read it; each command casts `data` to its route's shape. */
type Envelope = { ok?: boolean; data?: unknown; error?: { message?: unknown } } | null;

/** One operator request for the tools commands; a number (the exit status, after the envelope) when no daemon answers. */
export async function toolsRequest(
  home: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Envelope } | number> {
  if (!readDaemonInfo(home)) return noDaemon('tools', home);
  try {
    return (await operatorRequest(home, method, path, body)) as { status: number; json: Envelope };
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
