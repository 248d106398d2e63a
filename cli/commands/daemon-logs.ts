import { resolveHome } from '../../lib/home.js';
import { readDaemonInfo, readOperatorToken } from '../daemon-client.js';
import { DaemonLink, type LinkEvent } from '../daemon-link.js';
import { usage } from './message-common.js';
import { escapeJsonText, jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';

/**
 * `agentteam daemon logs [--limit N] [--follow]`: the daemon's recent
 * diagnostic lines (GET /api/v1/logs), one JSON object a line on stdout.
 * With --follow the operator event stream is opened first, so no line falls
 * between the two: new diagnostics (`daemon.log` events, deduplicated by
 * their number) and every other operator event (`{"event":TYPE,"data":...}`)
 * follow until SIGINT/SIGTERM (exit 0) or the daemon goes away (exit 3).
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  const info = readDaemonInfo(home);
  if (!info) return noDaemon('daemon logs', home);
  const limit = typeof opts.limit === 'number' ? opts.limit : 100;
  if (limit > 1000) {
    return usage('daemon logs', '--limit must be at most 1000');
  }
  const link = new DaemonLink(info.url, readOperatorToken(home));
  let last = 0;
  let caughtUp = false;
  const early: LinkEvent[] = [];
  const print = (e: LinkEvent) => {
    if (e.type === 'heartbeat') return;
    if (e.type === 'daemon.log') {
      const n = Number(e.data.n);
      if (n <= last) return;
      last = n;
      process.stdout.write(`${escapeJsonText(String(e.data.line))}\n`);
    } else process.stdout.write(`${jsonText({ event: e.type, data: e.data })}\n`);
  };
  let ended: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => (ended = resolve));
  if (opts.follow) {
    try {
      await link.open(
        (e) => (caughtUp ? print(e) : early.push(e)),
        (why) => {
          // Lines were printed already: the stream ends with its reason on stderr only.
          process.stderr.write(`agentteam daemon logs: ${visible(why)}\n`);
          ended(3);
        },
        'logs',
      );
    } catch (err) {
      link.close();
      return refuse('daemon logs', 'unavailable', (err as Error).message);
    }
  }
  const answer = await link.client
    .send('daemon.logs', { query: { limit: String(limit) } })
    .catch((err: Error) => err);
  if (answer instanceof Error) {
    link.close();
    return refuse('daemon logs', 'unavailable', answer.message);
  }
  const { status, envelope } = answer;
  if (envelope?.ok !== true) {
    process.stdout.write(`${jsonText(envelope)}\n`);
    const error = envelope?.ok === false ? envelope.error : undefined;
    process.stderr.write(
      `agentteam daemon logs: ${visible(String(error?.message ?? `HTTP ${status}`))}\n`,
    );
    link.close();
    return 1;
  }
  for (const e of envelope.data.entries) {
    process.stdout.write(`${escapeJsonText(e.line)}\n`);
    last = Math.max(last, e.n);
  }
  if (!opts.follow) {
    link.close();
    return 0;
  }
  caughtUp = true;
  early.splice(0).forEach(print);
  const stop = () => ended(0);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const code = await done;
  link.close();
  return code;
}
