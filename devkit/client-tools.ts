import { EventSource } from 'eventsource';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openLease, operatorToken } from './lease.js';
import { operatorCall } from './http.js';
import { operatorOf } from './operator.js';
import { operatorRequest } from '../lib/operator-client.js';
import type { Daemon } from './daemon.js';

/**
 * Test helpers for client tools: an app (a real SSE client library plus
 * plain HTTP calls, as an app would do it) and an agent (the official MCP
 * SDK client on a runtime lease of its own).
 */

export interface Frame<T = Record<string, unknown>> {
  readonly seq: number;
  readonly type: string;
  readonly data: T;
}

export interface App {
  readonly clientId: string;
  readonly frames: Frame[];
  /** Resolves with the first frame (already received or later) that matches. */
  next<T = Record<string, unknown>>(pred: (f: Frame) => boolean, ms?: number): Promise<Frame<T>>;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  register(group: string, tools: unknown[]): Promise<{ status: number; body: any }>;
  claim(requestId: string): Promise<{ status: number; body: any }>;
  answer(
    requestId: string,
    result: Record<string, unknown>,
  ): Promise<{ status: number; body: any }>;
  close(): void;
}

/** Opens GET /api/v1/events with the given bearer token; resolves after the hello frame. */
export function connectApp(
  d: Daemon,
  opts: { provider?: boolean; token?: string; query?: string } = {},
): Promise<App> {
  const token = opts.token ?? operatorToken(d);
  const q = opts.query ?? (opts.provider === false ? '' : '?client_tools=1');
  const frames: Frame[] = [];
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  // The stream's path from the operator API's row; the query may be one a test wants refused.
  const es = new EventSource(
    new URL(`${operatorRequest('events.open', { query: {} }).path}${q}`, d.url),
    {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: { ...(init?.headers ?? {}), authorization: `Bearer ${token}` },
        }),
    },
  );
  const onFrame = (e: MessageEvent) => {
    const f = JSON.parse(e.data as string) as Frame;
    frames.push(f);
    for (const w of [...waiters]) {
      if (w.pred(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  };
  for (const type of [
    'hello',
    'heartbeat',
    'client_tool.request',
    'client_tool.cancelled',
    'client_tools.changed',
  ])
    es.addEventListener(type, onFrame);
  const next: App['next'] = (pred, ms = 5000) => {
    const seen = frames.find(pred);
    if (seen) return Promise.resolve(seen as Frame<any>);
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(
            new Error(
              `no matching event within ${ms} ms; saw ${JSON.stringify(frames.map((f) => f.type))}`,
            ),
          ),
        ms,
      );
      waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(t);
          resolve(f as Frame<any>);
        },
      });
    });
  };
  return new Promise((resolve, reject) => {
    es.onerror = (err) =>
      reject(
        new Error(
          `event stream failed: ${(err as { code?: number }).code ?? ''} ${(err as { message?: string }).message ?? ''}`,
        ),
      );
    next((f) => f.type === 'hello').then((hello) => {
      es.onerror = null;
      const clientId = (hello.data as { client_id: string }).client_id;
      const call: App['call'] = async (method, path, body) => {
        const r = await operatorCall(d, method, path, body);
        return { status: r.status, body: r.body ? JSON.parse(r.body) : null };
      };
      // The typed rows; the relays' decoders check the bodies, so a test may send tools or results they refuse.
      const op = operatorOf(d);
      const sent = async (p: Promise<{ status: number; envelope: unknown }>) => {
        const r = await p;
        return { status: r.status, body: r.envelope as any };
      };
      resolve({
        clientId,
        frames,
        next,
        call,
        register: (group, tools) =>
          sent(
            op.send('clientTools.register', {
              body: { client_id: clientId, group, tools: tools as never },
            }),
          ),
        claim: (id) =>
          sent(op.send('clientTools.claim', { params: { id }, body: { client_id: clientId } })),
        answer: (id, result) =>
          sent(
            op.send('clientTools.result', {
              params: { id },
              body: { client_id: clientId, ...result } as never,
            }),
          ),
        close: () => es.close(),
      });
    }, reject);
  });
}

export interface Agent {
  readonly client: Client;
  readonly changes: { count: number };
  readonly token: () => string;
  readonly mcpUrl: string;
  readonly authorizationId: string;
  /** The session and run ids the daemon minted for the lease (what its client-tool calls carry). */
  readonly sessionId: string;
  readonly runId: string;
  close(): Promise<void>;
}

/** A runtime lease for (server, agent) and the official MCP client on it, counting list_changed notices. */
export async function connectAgent(
  d: Daemon,
  agentId: string,
  extra: Record<string, unknown> = {},
): Promise<Agent> {
  const lease = await openLease(d, { serverId: 'local', agentId, ...extra });
  const changes = { count: 0 };
  const client = new Client(
    { name: 'client-tools-test', version: '1.0.0' },
    {
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void changes.count++ },
      },
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(lease.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${lease.token()}` } },
  });
  await client.connect(transport);
  return {
    client,
    changes,
    token: lease.token,
    mcpUrl: lease.mcpUrl,
    authorizationId: lease.data.authorizationId,
    sessionId: lease.data.sessionId,
    runId: lease.data.runId,
    async close() {
      await client.close().catch(() => undefined);
      lease.close();
    },
  };
}

export const echoTool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `Echoes its input (${name}).`,
  input_schema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  timeout_s: 30,
  ...extra,
});

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  ms = 5000,
  step = 10,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, step));
  }
  if (!(await cond())) throw new Error(`condition not met within ${ms} ms`);
}

/** A tools/call from the agent, on a delegated thread when `thread` is given (the `agentteam/threadId` meta). */
export const callFrom = (
  agent: Agent,
  name: string,
  args: Record<string, unknown>,
  thread?: string,
) =>
  agent.client.callTool({
    name,
    arguments: args,
    ...(thread ? { _meta: { 'agentteam/threadId': thread } } : {}),
  });
