import { Agent, request } from 'node:http';
import { operatorToken } from './lease.js';

/**
 * Raw node:http clients for checks below the CLI and the MCP SDK: Exec
 * POSTs on a keep-alive pool, one-off requests, JSON-RPC to an MCP endpoint
 * and operator API calls.
 */

export interface HttpResult {
  status: number;
  text: string;
  json: any;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** One POST with a raw body (string or bytes); `headers` may override Content-Length etc. */
export function post(
  url: string,
  token: string,
  body: string | Uint8Array,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Calls an action with a JSON input through the runtime's base URL. */
export function call(
  rt: { readonly base: string; token(): string },
  domain: string,
  action: string,
  input: unknown,
): Promise<HttpResult> {
  return post(`${rt.base}/${domain}/${action}`, rt.token(), JSON.stringify(input));
}

/** Ends the keep-alive pool post() uses, so the test process can exit. */
export function closeHttp(): void {
  keepAlive.destroy();
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One raw HTTP request (node:http's default agent); `fresh` uses a connection of its own. */
export function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
  fresh = false,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const h =
      body === undefined
        ? headers
        : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = request(url, { method, headers: h, ...(fresh ? { agent: false } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One request with no connection reuse; `headers` may override Host. */
export function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawResponse> {
  return rawRequest(url, method, headers, body, true);
}

/** A JSON-RPC POST to an MCP endpoint with the usual Streamable HTTP headers. */
export function rpc(
  url: string,
  token: string,
  message: unknown,
  extra: Record<string, string> = {},
): Promise<RawResponse> {
  return rawRequest(
    url,
    'POST',
    {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...extra,
    },
    JSON.stringify(message),
  );
}

/** An operator API call with the operator token. */
export function operatorCall(
  d: { readonly home: string; readonly url: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<RawResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${operatorToken(d)}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return rawRequest(
    new URL(path, d.url).toString(),
    method,
    headers,
    body === undefined ? undefined : JSON.stringify(body),
  );
}

/** A GET on a connection of its own: status and body. */
export async function httpGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const r = await send(url, 'GET', headers);
  return { status: r.status, body: r.body };
}
