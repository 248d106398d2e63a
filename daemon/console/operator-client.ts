/**
 * The console reads and acts through the daemon's own operator routes, called
 * in process with the operator token added here: what a page shows is what
 * the CLI gets from the same route, and the token never leaves the daemon.
 */
export interface OperatorClient {
  get<T = unknown>(path: string): Promise<T>;
  post<T = unknown>(path: string, body: unknown): Promise<T>;
  del<T = unknown>(path: string): Promise<T>;
  /** A GET under another credential (the token-analysis surface takes its own scope, not the operator token). */
  getAs<T = unknown>(path: string, bearer: string): Promise<T>;
}

export class OperatorCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function operatorClient(
  fetch: (req: Request) => Response | Promise<Response>,
  token: string,
  port: () => number,
): OperatorClient {
  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    bearer = token,
  ): Promise<T> => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${bearer}`,
      host: `127.0.0.1:${port()}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(
      new Request(`http://127.0.0.1:${port()}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    const env = (await res.json()) as {
      ok: boolean;
      data?: unknown;
      error?: { code: string; message: string };
    };
    if (!env.ok)
      throw new OperatorCallError(
        res.status,
        env.error?.code ?? 'internal',
        env.error?.message ?? 'failed',
      );
    return env.data as T;
  };
  return {
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b),
    del: (p) => call('DELETE', p),
    getAs: (p, b) => call('GET', p, undefined, b),
  };
}
