import { request } from 'node:http';
import { rpc, type RawResponse } from './http.js';

/**
 * A client of MCP revision 2026-07-28 over raw HTTP: stateless requests
 * carrying the revision's `_meta` and standard headers, and the
 * subscriptions/listen stream.
 */

export const V = '2026-07-28';
export const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1.0.0' },
};

/** A 2026-07-28 request with the revision's standard headers, as a conforming client sends it. */
export function modern(
  url: string,
  token: string,
  id: number,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const std: Record<string, string> = { 'mcp-protocol-version': V, 'mcp-method': method };
  if (method === 'tools/call') std['mcp-name'] = String(params.name);
  return rpc(
    url,
    token,
    { jsonrpc: '2.0', id, method, params: { ...params, _meta: META } },
    { ...std, ...headers },
  );
}

export function parsed(r: RawResponse): {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
} {
  return JSON.parse(r.body) as never;
}

export interface ListenStream {
  /** Each SSE event's data as parsed JSON, with when it arrived. */
  readonly events: { at: number; msg: Record<string, any> }[];
  /** Resolves with the status and content type once the server ends the stream. */
  readonly ended: Promise<{ status: number; type: string }>;
  close(): void;
}

/** Opens a 2026 subscriptions/listen stream and collects its events; `onEvent` sees each one as it arrives. */
export function openListen(
  url: string,
  token: string,
  id: string | number,
  notifications: Record<string, unknown>,
  onEvent: (n: number) => void = () => undefined,
): ListenStream {
  const events: ListenStream['events'] = [];
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications, _meta: META },
  });
  let req!: ReturnType<typeof request>;
  const ended = new Promise<{ status: number; type: string }>((resolve, reject) => {
    req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': V,
          'mcp-method': 'subscriptions/listen',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        let buf = '';
        res.on('data', (c: Buffer) => {
          buf += c.toString();
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            const data = buf
              .slice(0, i)
              .split('\n')
              .find((l) => l.startsWith('data: '));
            buf = buf.slice(i + 2);
            if (!data) continue;
            events.push({ at: Date.now(), msg: JSON.parse(data.slice(6)) as Record<string, any> });
            onEvent(events.length);
          }
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']) }),
        );
        res.on('error', () => undefined);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  ended.catch(() => undefined);
  return { events, ended, close: () => req.destroy() };
}
