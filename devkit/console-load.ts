import { request, type ClientRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rawRequest } from './http.js';
import type { Daemon } from './daemon.js';

/**
 * What the console-load test and bench share: an audit trail filled before
 * the daemon starts, a console session signed in over plain HTTP, live
 * Overview streams read frame by frame, and the daemon's CPU time.
 */

const TOOLS = ['task/create', 'task/list', 'message/post', 'approval/request', 'kb/search'];

/**
 * Writes `rows` audit rows spread over the 55 minutes before `now` straight
 * into a stopped daemon's store (its migrations have run): one transaction,
 * far faster than calls through the daemon, and the same rows the recorder
 * would write. One call in 20 failed; durations 1 to 51 ms.
 */
export function fillAudit(home: string, rows: number, now: number): void {
  const db = new Database(join(home, 'store.db'));
  const insert =
    db.prepare(`INSERT INTO audit (at, server_id, agent_id, authorization_id, generation_id, runtime, thread_id, via, transport, tool, outcome, duration_us, request_bytes, result_bytes, trace_id, args, result)
    VALUES (?, 's1', ?, 'auth0', 'gen0', 'generic', NULL, 'exec', 'exec', ?, ?, ?, 20, 200, NULL, NULL, NULL)`);
  const span = 55 * 60_000;
  db.transaction(() => {
    for (let i = 0; i < rows; i++)
      insert.run(
        now - span + Math.floor((i * span) / rows),
        `agent-${i % 7}`,
        TOOLS[i % TOOLS.length]!,
        i % 20 === 0 ? 'not_found' : 'ok',
        1000 + ((i * 7919) % 50_000),
      );
  })();
  db.close();
}

/** A console session: its cookie, and the console's own host name every request must carry. */
export interface ConsoleSession {
  readonly cookie: string;
  readonly host: string;
}

/** Signs in to the console as a browser would (one-time link, the console's Host and Origin, form post). */
export async function consoleCookie(d: Daemon): Promise<ConsoleSession> {
  const r = await d.cli(['console']);
  if (r.code !== 0) throw new Error(`agentteam console: ${r.stderr}`);
  const link = new URL(r.stdout.trim());
  const code = link.searchParams.get('code')!;
  const login = await rawRequest(
    `${d.url}/console/login`,
    'POST',
    { host: link.host, 'content-type': 'application/x-www-form-urlencoded', origin: link.origin },
    `code=${code}`,
  );
  if (login.status !== 303) throw new Error(`console sign-in answered ${login.status}`);
  return { cookie: String(login.headers['set-cookie']).split(';')[0]!, host: link.host };
}

/** One open live page: the HTML fragments it has received, in order. */
export interface LiveTab {
  readonly fragments: string[];
  /** Resolves when the tab holds at least `n` fragments (rejects when the stream ends first). */
  atLeast(n: number): Promise<void>;
  close(): void;
}

export function openLive(d: Daemon, session: ConsoleSession, path: string): LiveTab {
  const fragments: string[] = [];
  let waiters: { n: number; resolve(): void; reject(e: Error): void }[] = [];
  let ended: Error | null = null;
  const settle = () => {
    waiters = waiters.filter((w) => {
      if (fragments.length >= w.n) w.resolve();
      else if (ended) w.reject(ended);
      else return true;
      return false;
    });
  };
  const end = (e: Error) => {
    ended ??= e;
    settle();
  };
  const req: ClientRequest = request(
    `${d.url}${path}`,
    { headers: { cookie: session.cookie, host: session.host }, agent: false },
    (res) => {
      if (res.statusCode !== 200) end(new Error(`${path} answered ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        buf += chunk;
        for (let at = buf.indexOf('\n\n'); at >= 0; at = buf.indexOf('\n\n')) {
          const frame = buf.slice(0, at);
          buf = buf.slice(at + 2);
          if (frame.startsWith('event: fragment\n'))
            fragments.push(
              frame
                .split('\n')
                .slice(1)
                .map((l) => l.slice(6))
                .join('\n'),
            );
        }
        settle();
      });
      res.on('end', () => end(new Error(`${path} ended`)));
      res.on('error', end);
    },
  );
  req.on('error', end);
  req.end();
  return {
    fragments,
    atLeast: (n) =>
      new Promise<void>((resolve, reject) => {
        waiters.push({ n, resolve, reject });
        settle();
      }),
    close: () => {
      ended ??= new Error('closed');
      req.destroy();
    },
  };
}

/** The "Calls, last hour" figure of an Overview fragment. */
export function hourCalls(fragment: string): number {
  return Number(
    /data-stat="Calls, last hour"><span class="mute">[^<]*<\/span><b>(\d+)<\/b>/.exec(
      fragment,
    )?.[1] ?? NaN,
  );
}

/** CPU time a process has used so far (user + system, ms); Linux only (NaN elsewhere). */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
