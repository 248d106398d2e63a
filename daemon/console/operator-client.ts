import {
  OperatorCallError,
  operatorClient,
  type OperatorClient,
} from '../../lib/operator-client.js';

/**
 * The console reads and acts through the daemon's own operator API, called in
 * process with the one typed client (lib/operator-client.ts) and the operator
 * token added here: what a page shows is what the CLI gets from the same row,
 * and the token never leaves the daemon.
 */
export interface ConsoleOperator extends OperatorClient {
  /** A GET under another credential (the token-analysis surface takes its own scope, not the operator token). */
  getAs<T>(path: string, bearer: string): Promise<T>;
}

export function consoleOperator(
  fetch: (req: Request) => Response | Promise<Response>,
  token: string,
  port: () => number,
): ConsoleOperator {
  const send = async (method: string, path: string, body: string | undefined, bearer: string) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${bearer}`,
      host: `127.0.0.1:${port()}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(
      new Request(`http://127.0.0.1:${port()}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
      }),
    );
    return { status: res.status, json: (await res.json()) as unknown };
  };
  return {
    ...operatorClient((r) => send(r.method, r.path, r.body, token)),
    async getAs<T>(path: string, bearer: string): Promise<T> {
      const { status, json } = await send('GET', path, undefined, bearer);
      const env = json as { ok?: boolean; data?: T; error?: { code?: string; message?: string } };
      if (env?.ok === true) return env.data as T;
      throw new OperatorCallError(
        status,
        env?.error?.code ?? 'internal',
        env?.error?.message ?? 'failed',
      );
    },
  };
}
