import { request, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Opens runtime leases on a daemon through the operator route, as `agentteam
 * run` does, and reports how each ended. In-process or spawned daemons alike.
 */
export interface LeaseResult {
  readonly status: number;
  /** First NDJSON line (200) or the whole error envelope. */
  readonly body: { ok: boolean; data?: { authorizationId: string; privateDir: string; tokenFile: string; execBaseUrl: string; mcpUrl: string }; error?: { code: string; message: string } };
  /** Resolves when the daemon ends the lease stream (revocation). */
  readonly ended: Promise<void>;
  token(): string;
  close(): void;
}

export function operatorToken(home: string): string {
  return readFileSync(join(home, 'operator.token'), 'utf8').trim();
}

export function openLease(url: string, opToken: string, body: Record<string, unknown>): Promise<LeaseResult> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(new URL('/api/v1/runtimes', url), {
      method: 'POST',
      agent: false,
      headers: { authorization: `Bearer ${opToken}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    }, (res: IncomingMessage) => {
      let buf = '';
      let done = false;
      let endResolve!: () => void;
      const ended = new Promise<void>((r) => (endResolve = r));
      res.setEncoding('utf8');
      res.on('error', () => undefined);
      res.on('close', () => endResolve());
      const finish = (text: string) => {
        if (done) return;
        done = true;
        const parsed = JSON.parse(text) as LeaseResult['body'];
        resolve({
          status: res.statusCode ?? 0,
          body: parsed,
          ended,
          token: () => readFileSync(parsed.data!.tokenFile, 'utf8').trim(),
          close: () => req.destroy(),
        });
      };
      res.on('data', (d: string) => {
        buf += d;
        const nl = buf.indexOf('\n');
        if (res.statusCode === 200 && nl >= 0) finish(buf.slice(0, nl));
      });
      res.on('end', () => {
        if (!done) finish(buf);
      });
    });
    req.on('error', (err) => reject(err));
    req.end(payload);
  });
}

export interface Reply {
  readonly status: number;
  readonly body: string;
}

/** One request with no connection reuse; `headers` may override Host. */
export function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const h = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request(url, { method, headers: h, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
