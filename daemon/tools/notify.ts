import { StreamQuota } from '../http/stream-quota.js';
import type { Context } from 'hono';
import type { Clock, ClockTimer } from '../../lib/clock.js';
import type { RuntimeRequest } from '../auth/principal.js';
import { SSE_HEADERS, openSse, type SseSink } from '../http/sse.js';
import { ExecError } from '../errors/exec-error.js';
import { socketOf, type LongLivedStreams } from '../http/stream-budget.js';

/**
 * Change notices to agents. A 2025-revision client that opens GET on the MCP
 * endpoint gets an SSE stream that carries `notifications/tools/list_changed`
 * whenever the tool registry changes, coalesced to at most one a second: the
 * first change after a quiet second goes out at once, later ones are folded
 * into one notice at the end of the second. The stream ends when the
 * runtime's authorization is revoked.
 */

const LIST_CHANGED_FRAME =
  'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n';
const COALESCE_MS = 1_000;
const HEARTBEAT_MS = 15_000;
/** Notification streams one runtime authorization may hold open at once. */
const MAX_STREAMS_PER_AUTH = 4;

/** Anything that can tell listeners the tool list changed (already coalesced). */
export interface ToolChangeFeed {
  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: () => void): () => void;
}

export class ListChangedNotifier implements ToolChangeFeed {
  private readonly sinks = new Set<SseSink>();
  private readonly quota = new StreamQuota(MAX_STREAMS_PER_AUTH);
  /** Other carriers of the same coalesced notice (2026 subscriptions/listen streams). */
  private readonly listeners = new Set<() => void>();
  private lastSentAt = -Infinity;
  private timer: ClockTimer | null = null;
  /** Notices actually sent (tests and diagnostics). */
  sent = 0;

  constructor(
    private readonly clock: Clock,
    private readonly budget?: LongLivedStreams,
  ) {}

  get streams(): number {
    return this.sinks.size;
  }

  /** The registry changed. */
  changed(): void {
    if (this.timer !== null) return; // a notice is already scheduled and will carry this change
    const wait = this.lastSentAt + COALESCE_MS - this.clock.now();
    if (wait <= 0) {
      this.send();
      return;
    }
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.send();
    }, wait);
    this.timer.unref?.();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private send(): void {
    this.lastSentAt = this.clock.now();
    this.sent++;
    for (const s of this.sinks) s.write(LIST_CHANGED_FRAME);
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // One broken stream must not stop the notice reaching the others.
      }
    }
  }

  /** GET on the MCP endpoint (after runtime auth): the notification stream. */
  open(c: Context): Response {
    const { signal, principal } = c.get('runtime') as RuntimeRequest;
    const release = this.quota.take(principal.authorizationId);
    if (!release)
      throw new ExecError(
        'busy',
        `at most ${MAX_STREAMS_PER_AUTH} notification streams per runtime; close one first`,
      );
    const holder: { sink: SseSink | null } = { sink: null };
    const { body, sink } = openSse({
      clock: this.clock,
      heartbeatMs: HEARTBEAT_MS,
      heartbeat: () => ': keep-alive\n\n',
      onClose: () => {
        if (holder.sink) this.sinks.delete(holder.sink);
        release();
        ticket?.release();
      },
    });
    holder.sink = sink;
    const ticket = this.budget?.admit({
      owner: principal.authorizationId,
      kind: 'mcp_get',
      socket: socketOf(c),
      shed: () => sink.close(),
    });
    this.sinks.add(sink);
    sink.write(': agentteam tool notices\n\n');
    const stop = () => sink.close();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    const conn = c.req.raw.signal;
    if (conn.aborted) stop();
    else conn.addEventListener('abort', stop, { once: true });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  closeAll(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    for (const s of [...this.sinks]) s.close();
    this.listeners.clear();
  }
}
