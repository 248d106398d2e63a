import { EVENT_KINDS, PERSON_EVENT_KINDS, type EventKind } from '../../catalog/event-kinds.js';
import { resolveHome } from '../../lib/home.js';
import { readDaemonInfo, readOperatorToken } from '../daemon-client.js';
import { DaemonLink, type LinkEvent } from '../daemon-link.js';
import { jsonText } from '../json-text.js';
import { noDaemon, refuse } from '../refusal.js';
import { visible } from '../terminal-text.js';
import { eventTarget, watchLine } from '../watch-line.js';
import { usage } from './message-common.js';

/** How long to wait before opening the stream again after the daemon went away. */
const RECONNECT_MS = 1000;

/**
 * `agentteam watch [--kind K,...] [--target T] [--json]`: what happens in
 * the team as it happens, one line per event for a person at a terminal
 * (time, kind, who, what; every text made inert), or one JSON object a line
 * with --json. By default the kinds a person follows (messages, approvals,
 * tasks, turns, tool cards); --kind names others. The stream keeps no
 * history to resume from, so when the daemon goes away watch says so on
 * stderr and opens a new stream once a daemon answers again (events in
 * between are not replayed). Ends with SIGINT/SIGTERM (exit 0).
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const home = resolveHome();
  let kinds: ReadonlySet<string> = new Set(PERSON_EVENT_KINDS);
  if (typeof opts.kind === 'string') {
    const asked = opts.kind.split(',').filter((k) => k !== '');
    const unknown = asked.filter((k) => !(k in EVENT_KINDS));
    if (asked.length === 0 || unknown.length > 0)
      return usage(
        'watch',
        `--kind takes event kinds separated by commas, of: ${Object.keys(EVENT_KINDS).join(', ')}${unknown.length > 0 ? ` (not ${unknown.join(', ')})` : ''}`,
      );
    kinds = new Set(asked as EventKind[]);
  }
  const target = typeof opts.target === 'string' ? opts.target : null;
  const json = opts.json === true;
  if (!readDaemonInfo(home)) return noDaemon('watch', home);

  const print = (e: LinkEvent) => {
    if (!kinds.has(e.type)) return;
    const data = e.data as Record<string, unknown>;
    if (target !== null && eventTarget(e.type, data) !== target) return;
    process.stdout.write(
      json ? `${jsonText({ type: e.type, data })}\n` : `${watchLine(e.type, data, new Date())}\n`,
    );
  };
  let stopped = false;
  let link: DaemonLink | null = null;
  let wake: () => void = () => undefined;
  const stop = () => {
    stopped = true;
    link?.close();
    wake();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let opened = false;
  while (!stopped) {
    const info = readDaemonInfo(home);
    if (info) {
      const current = new DaemonLink(info.url, readOperatorToken(home));
      link = current;
      const ended = new Promise<string>((resolve) => {
        current
          .open(print, resolve, 'watch')
          .then(() => {
            process.stderr.write(
              opened
                ? 'agentteam watch: connected again\n'
                : `agentteam watch: following ${info.url} (Ctrl-C ends)\n`,
            );
            opened = true;
          })
          .catch((err: Error) => resolve(err.message));
      });
      wake = () => undefined;
      const why = await Promise.race([ended, new Promise<string>((r) => (wake = () => r('')))]);
      current.close();
      if (stopped) break;
      if (!opened) return refuse('watch', 'unavailable', why);
      process.stderr.write(
        `agentteam watch: ${visible(why)}; waiting for the daemon (events meanwhile are not replayed)\n`,
      );
    }
    await new Promise<void>((r) => {
      const t = setTimeout(r, RECONNECT_MS);
      wake = () => {
        clearTimeout(t);
        r();
      };
    });
  }
  return 0;
}
