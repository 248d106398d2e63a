import { openHttpStream } from '../cli/daemon-http.js';
import { operatorClient, type OperatorClient } from '../lib/operator-client.js';
import { rawRequest } from './http.js';
import { operatorToken } from './lease.js';

/**
 * The tests' operator API client: the one typed client (lib/operator-client.ts)
 * over a plain node:http request with the home's operator token; event
 * streams through the CLI's own stream transport (cli/daemon-http.ts). Tests that
 * must send what the typed client would not (a malformed body, an unknown
 * path) use `operatorCall` in devkit/http.ts instead.
 */
export function operatorOf(d: { readonly home: string; readonly url: string }): OperatorClient {
  return operatorClient(
    async (r) => {
      const headers: Record<string, string> = { authorization: `Bearer ${operatorToken(d)}` };
      if (r.body !== undefined) headers['content-type'] = 'application/json';
      const res = await rawRequest(new URL(r.path, d.url).toString(), r.method, headers, r.body);
      return { status: res.status, json: res.body ? (JSON.parse(res.body) as unknown) : null };
    },
    (r, signal) => openHttpStream({ url: d.url, token: operatorToken(d) }, r, signal),
  );
}
