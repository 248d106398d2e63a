import type { Clock, ClockTimer } from '../../lib/clock.js';
import type { ToolChangeFeed } from './notify.js';
import type { RpcId } from './jsonrpc.js';
import { META_KEYS } from './modern.js';

/** Streams open at once: per runtime authorization and per daemon. Past either, the request is refused as busy. */
export const LISTEN_LIMITS = { perAuthorization: 4, perDaemon: 256, keepAliveMs: 15_000 } as const;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
} as const;

export type ListenStart =
  | { ok: true; response: Response }
  | { ok: false; status: number; code: number; message: string };

export interface ListenOptions {
  readonly id: RpcId;
  readonly params: Record<string, unknown>;
  readonly feed: ToolChangeFeed;
  /** Aborted when the authorization is revoked or the daemon stops: the stream ends gracefully. */
  readonly signal: AbortSignal;
  readonly authorizationId: string;
  readonly clock: Clock;
  readonly keepAliveMs?: number;
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
  private readonly perAuth = new Map<string, number>();
  private total = 0;

  get open(): number {
    return this.total;
  }

  start(opts: ListenOptions): ListenStart {
    const filter = opts.params.notifications;
    if (filter !== undefined && (filter === null || typeof filter !== 'object' || Array.isArray(filter))) {
      return { ok: false, status: 400, code: -32602, message: 'Invalid params: notifications must be an object' };
    }
    const wanted = (filter ?? {}) as Record<string, unknown>;
    for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
      if (wanted[key] !== undefined && typeof wanted[key] !== 'boolean') {
        return { ok: false, status: 400, code: -32602, message: `Invalid params: notifications.${key} must be a boolean` };
      }
    }
    if (opts.signal.aborted) return { ok: false, status: 403, code: -32001, message: 'the authorization was revoked' };
    const mine = this.perAuth.get(opts.authorizationId) ?? 0;
    if (mine >= LISTEN_LIMITS.perAuthorization || this.total >= LISTEN_LIMITS.perDaemon) {
      return { ok: false, status: 409, code: -32009, message: 'Too many subscriptions/listen streams are open; close one first.' };
    }
    this.perAuth.set(opts.authorizationId, mine + 1);
    this.total++;

    const tools = wanted.toolsListChanged === true;
    const subMeta = { [META_KEYS.subscriptionId]: opts.id };
    const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: subMeta, notifications: tools ? { toolsListChanged: true } : {} } };
    const changed = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: subMeta } })}\n\n`;
    const closing = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: opts.id, result: { resultType: 'complete', _meta: subMeta } })}\n\n`;
    const encoder = new TextEncoder();
    const keepAliveMs = opts.keepAliveMs ?? LISTEN_LIMITS.keepAliveMs;

    let done = false;
    let unsubscribe: (() => void) | undefined;
    let keepAlive: ClockTimer | undefined;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const release = () => {
      if (done) return;
      done = true;
      unsubscribe?.();
      if (keepAlive !== undefined) opts.clock.clearTimeout(keepAlive);
      opts.signal.removeEventListener('abort', onAbort);
      const left = (this.perAuth.get(opts.authorizationId) ?? 1) - 1;
      if (left <= 0) this.perAuth.delete(opts.authorizationId);
      else this.perAuth.set(opts.authorizationId, left);
      this.total--;
    };
    const send = (text: string) => {
      if (done) return;
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        release();
      }
    };
    const onAbort = () => {
      if (done) return;
      send(closing);
      release();
      try {
        controller.close();
      } catch {
        // already closed by the client
      }
    };
    const armKeepAlive = () => {
      keepAlive = opts.clock.setTimeout(() => {
        send(':\n\n');
        if (!done) armKeepAlive();
      }, keepAliveMs);
      keepAlive.unref?.();
    };

    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        send(`event: message\ndata: ${JSON.stringify(ack)}\n\n`);
        if (tools) unsubscribe = opts.feed.subscribe(() => send(changed));
        armKeepAlive();
        opts.signal.addEventListener('abort', onAbort, { once: true });
      },
      // The client closed the stream: that is the cancellation of this subscription.
      cancel: () => release(),
    });
    return { ok: true, response: new Response(body, { status: 200, headers: SSE_HEADERS }) };
  }
}
