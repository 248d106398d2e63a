import { request, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runtime leases opened on a daemon through the operator route, as `agentteam
 * run` does. In-process or spawned daemons alike.
 */

/** The operator token of a home (or of the daemon serving it). */
export function operatorToken(where: string | { readonly home: string }): string {
  return readFileSync(
    join(typeof where === 'string' ? where : where.home, 'operator.token'),
    'utf8',
  ).trim();
}

export interface LeaseData {
  authorizationId: string;
  privateDir: string;
  tokenFile: string;
  execBaseUrl: string;
  mcpUrl: string;
  env: Record<string, string>;
  args: string[];
  argsFor?: string;
  shimDir?: string;
  tokenEnv?: string;
}

export interface LeaseResult {
  readonly status: number;
  /** First NDJSON line (200) or the whole error envelope. */
  readonly body: { ok: boolean; data?: LeaseData; error?: { code: string; message: string } };
  /** Resolves when the daemon ends the lease stream (revocation). */
  readonly ended: Promise<void>;
  token(): string;
  close(): void;
}

/** POST /api/v1/runtimes; resolves with the answer whatever its status. The lease lasts until `close()`. */
export function requestLease(
  url: string,
  opToken: string,
  body: Record<string, unknown>,
): Promise<LeaseResult> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/api/v1/runtimes', url),
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${opToken}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res: IncomingMessage) => {
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
      },
    );
    req.on('error', (err) => reject(err));
    req.end(payload);
  });
}

export interface Lease {
  token(): string;
  readonly mcpUrl: string;
  readonly data: LeaseData;
  close(): void;
}

/**
 * A lease that must be granted (it rejects otherwise), for fields `run` has
 * no flag for (the primary thread id). The lease lasts until `close()`.
 */
export async function openLease(
  d: { readonly home: string; readonly url: string },
  body: Record<string, unknown>,
): Promise<Lease> {
  const lease = await requestLease(d.url, operatorToken(d), body);
  if (lease.status !== 200 || !lease.body.ok || !lease.body.data) {
    lease.close();
    throw new Error(JSON.stringify(lease.body));
  }
  return {
    token: lease.token,
    mcpUrl: lease.body.data.mcpUrl,
    data: lease.body.data,
    close: lease.close,
  };
}
