import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { readDaemonInfo, type DaemonInfo } from './daemon-client.js';

/** What the daemon's first lease line describes (paths and URLs only, never a token). */
interface Lease {
  authorizationId: string;
  privateDir: string;
  tokenFile: string;
  /** Proves a later re-lease of this runtime's directory comes from us; kept in memory, never passed on. */
  resumeSecret?: string;
  execBaseUrl: string;
  mcpUrl: string;
  env: Record<string, string>;
  args: string[];
  argsFor?: string;
  shimDir?: string;
  binDir?: string;
  /** A variable set to the current token when the runtime is started directly (a Codex too old for a header helper). */
  tokenEnv?: string;
}

export interface OpenLease {
  readonly req: ClientRequest;
  readonly res: IncomingMessage;
  readonly lease: Lease;
  /**
   * Resolves when the lease stream ends: with the reason of the daemon's last
   * line (`shutdown`, `replaced`, `exit`, ...), or null when the stream broke
   * off without one (the daemon died).
   */
  readonly ended: Promise<string | null>;
}

/**
 * POST /api/v1/runtimes: the answer's first line is the lease; the stream
 * then stays open for the runtime's lifetime and its last line says why the
 * daemon revoked it.
 */
export function openLease(url: string, token: string, body: object): Promise<OpenLease> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/v1/runtimes', url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(payload.length),
      },
    });
    req.on('error', (err) =>
      reject(Object.assign(new Error(`cannot reach the daemon: ${err.message}`), { exit: 3 })),
    );
    req.on('response', (res) => {
      let buf = '';
      let opened = false;
      let reason: string | null = null;
      let endedResolve!: (r: string | null) => void;
      const ended = new Promise<string | null>((r) => (endedResolve = r));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        if (res.statusCode !== 200) return; // an error body, read whole at the end
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          const parsed = parseLine(line);
          if (!opened && parsed?.data) {
            opened = true;
            resolve({ req, res, lease: parsed.data, ended });
          } else if (parsed?.event === 'revoked' && typeof parsed.reason === 'string')
            reason = parsed.reason;
        }
      });
      // A daemon that dies cuts the stream (an error, then close); that is not our crash.
      res.on('error', () => undefined);
      req.on('error', () => undefined);
      res.on('close', () => {
        endedResolve(reason);
        if (res.statusCode === 200) {
          if (!opened) reject(new Error('the daemon closed the runtime lease before it was ready'));
          return;
        }
        let message = buf;
        let code = 'upstream_error';
        try {
          const e = (JSON.parse(buf) as { error: { code: string; message: string } }).error;
          message = `${e.code}: ${e.message}`;
          code = e.code;
        } catch {
          // keep the raw text
        }
        reject(
          Object.assign(new Error(`the daemon refused the runtime: ${message}`), { exit: 1, code }),
        );
      });
    });
    req.end(payload);
  });
}

/**
 * Waits for a daemon of this home other than `gone` (pid) to be recorded and
 * alive; null when none came up before `deadline` or `cancelled()` turned true.
 */
export async function nextDaemon(
  home: string,
  gone: number,
  deadline: number,
  cancelled: () => boolean,
): Promise<DaemonInfo | null> {
  for (;;) {
    if (cancelled()) return null;
    const info = readDaemonInfo(home);
    if (info && info.pid !== gone) return info;
    if (Date.now() >= deadline) return null;
    await new Promise((r) => setTimeout(r, 100).unref());
  }
}

function parseLine(line: string): { data?: Lease; event?: string; reason?: unknown } | null {
  try {
    const v = JSON.parse(line) as unknown;
    return typeof v === 'object' && v !== null
      ? (v as { data?: Lease; event?: string; reason?: unknown })
      : null;
  } catch {
    return null; // a line we do not understand says nothing
  }
}
