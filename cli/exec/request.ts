import { request } from 'node:http';

type PostResult =
  | { readonly ok: true; readonly status: number; readonly body: string }
  | { readonly ok: false; readonly error: NodeJS.ErrnoException };

/** A daemon that accepts the connection but stays silent this long is treated as gone. */
export const ANSWER_TIMEOUT_MS = 120_000;

/**
 * Exactly one POST with node:http. Not fetch: loading undici costs ~85 ms of
 * process start here, more than the whole rest of the command. Resolves with
 * `ETIMEDOUT` when the connection stays idle for `timeoutMs`.
 */
export function postJson(url: string, token: string, body: string, timeoutMs = ANSWER_TIMEOUT_MS, extraHeaders: Readonly<Record<string, string>> = {}): Promise<PostResult> {
  return new Promise((resolve) => {
    const payload = Buffer.from(body, 'utf8');
    const req = request(url, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': payload.length,
        accept: 'application/json',
        ...extraHeaders,
      },
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, error }));
    req.setTimeout(timeoutMs, () => {
      const error: NodeJS.ErrnoException = new Error(`no answer within ${timeoutMs} ms`);
      error.code = 'ETIMEDOUT';
      req.destroy(error);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, error }));
      res.on('end', () => {
        resolve({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        // The answer is complete: close now rather than wait for the daemon to close its end (the process exits on close).
        res.socket?.destroy();
      });
      res.on('close', () => {
        if (res.complete) return;
        const error: NodeJS.ErrnoException = new Error('the connection closed before the response was complete');
        error.code = 'ECONNRESET';
        resolve({ ok: false, error });
      });
    });
    req.end(payload);
  });
}
