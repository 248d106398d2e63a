import type { Clock } from '../../lib/clock.js';
import { openSse, SSE_HEADERS } from '../http/sse.js';
import { StreamQuota } from '../http/stream-quota.js';
import type { ToolChangeFeed } from '../tools/notify.js';
import type { Socket } from 'node:net';
import type { LongLivedStreams } from '../http/stream-budget.js';
import type { RpcId } from './jsonrpc.js';
import { META_KEYS } from './modern.js';

/**
 * Streams one runtime authorization may hold open at once (past it the
 * request is refused as busy); the daemon-wide bound is the long-lived
 * stream budget (daemon/http/stream-budget.ts), which sheds instead.
 */
const LISTEN_LIMITS = { perAuthorization: 4, keepAliveMs: 15_000 } as const;

type ListenStart =
  | { ok: true; response: Response }
  | { ok: false; status: number; code: number; message: string };

interface ListenOptions {
  readonly id: RpcId;
  readonly params: Record<string, unknown>;
  readonly feed: ToolChangeFeed;
  /** Aborted when the authorization is revoked or the daemon stops: the stream ends gracefully. */
  readonly signal: AbortSignal;
  readonly authorizationId: string;
  readonly clock: Clock;
  readonly keepAliveMs?: number;
  /** The connection the stream is served on (for the connection cap to shed it). */
  readonly socket?: Socket | null;
}

/**
 * `subscriptions/listen` of the 2026-07-28 revision (basic/patterns/
 * subscriptions): one long-lived POST response stream. The first message is
 * the acknowledgment with the filter the server honours (only
 * toolsListChanged: this server has no prompts or resources), then one
 * `notifications/tools/list_changed` per coalesced change, each tagged with
 * the subscription id (the request's JSON-RPC id). When the server ends the
 * stream (revocation, shutdown) it first answers the request with a
 * completion result, so the client can tell a graceful end from a drop.
 */
export class ListenStreams {
  private readonly quota = new StreamQuota(LISTEN_LIMITS.perAuthorization);

  constructor(private readonly budget?: LongLivedStreams) {}

  get open(): number {
    return this.quota.open;
  }

  start(opts: ListenOptions): ListenStart {
    const filter = opts.params.notifications;
    if (
      filter !== undefined &&
      (filter === null || typeof filter !== 'object' || Array.isArray(filter))
    ) {
      return {
        ok: false,
        status: 400,
        code: -32602,
        message: 'Invalid params: notifications must be an object',
      };
    }
    const wanted = (filter ?? {}) as Record<string, unknown>;
    for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
      if (wanted[key] !== undefined && typeof wanted[key] !== 'boolean') {
        return {
          ok: false,
          status: 400,
          code: -32602,
          message: `Invalid params: notifications.${key} must be a boolean`,
        };
      }
    }
    if (opts.signal.aborted)
      return { ok: false, status: 403, code: -32001, message: 'the authorization was revoked' };
    const release = this.quota.take(opts.authorizationId);
    if (!release)
      return {
        ok: false,
        status: 409,
        code: -32009,
        message: 'Too many subscriptions/listen streams are open; close one first.',
      };

    const tools = wanted.toolsListChanged === true;
    const subMeta = { [META_KEYS.subscriptionId]: opts.id };
    const frame = (msg: unknown) => `event: message\ndata: ${JSON.stringify(msg)}\n\n`;
    const ack = frame({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: subMeta, notifications: tools ? { toolsListChanged: true } : {} },
    });
    const changed = frame({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: subMeta },
    });
    const closing = frame({
      jsonrpc: '2.0',
      id: opts.id,
      result: { resultType: 'complete', _meta: subMeta },
    });

    let unsubscribe: () => void = () => {};
    // The server ends the subscription (revocation, shutdown): answer the listen request first.
    const onAbort = () => {
      sink.write(closing);
      sink.close();
    };
    const { body, sink } = openSse({
      clock: opts.clock,
      heartbeatMs: opts.keepAliveMs ?? LISTEN_LIMITS.keepAliveMs,
      heartbeat: () => ':\n\n',
      // Whoever ends it (the client closing the stream is the cancellation of this subscription).
      onClose: () => {
        unsubscribe();
        opts.signal.removeEventListener('abort', onAbort);
        release();
        ticket?.release();
      },
    });
    // Shed by the budget: ended like any server-side end, with the completion result first.
    const ticket = this.budget?.admit({
      owner: opts.authorizationId,
      kind: 'listen',
      socket: opts.socket ?? null,
      shed: onAbort,
    });
    sink.write(ack);
    if (tools) unsubscribe = opts.feed.subscribe(() => void sink.write(changed));
    opts.signal.addEventListener('abort', onAbort, { once: true });
    return { ok: true, response: new Response(body, { status: 200, headers: SSE_HEADERS }) };
  }
}
