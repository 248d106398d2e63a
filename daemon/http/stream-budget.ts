import type { Socket } from 'node:net';
import type { Context } from 'hono';
import { nodeRequestOf } from './node-request.js';

/**
 * The daemon-wide budget of long-lived streams: the 2025 MCP GET notification
 * streams, 2026 subscriptions/listen streams and the operator event streams.
 * Each holds a connection (and a descriptor) for as long as the client keeps
 * it, without holding an in-flight slot, so without a budget enough runtimes
 * opening their per-runtime maximum fill the connection cap and lock every
 * new connection out, the operator's included.
 *
 * The budget is half the connection cap: the other half stays for runtime
 * leases and ordinary requests. While the busy connections (serving a
 * request: leases, streams, calls) are within the reserve of the cap (an
 * eighth, at least 8), each new stream sheds two old ones, so streams give
 * way as leases grow. Past the budget a new stream is still accepted and
 * the oldest stream of the runtime holding the most streams is shed (its
 * client sees the stream end and may reopen it later); operator streams are
 * shed only when no runtime holds one. The connection cap asks this budget
 * for a stream to shed when every connection is busy, so a new connection
 * (the operator's, a new runtime's lease) gets in while any stream is open.
 */

/** Streams kept per connection the daemon accepts: half of them. */
export function streamCap(maxConnections: number): number {
  return Math.max(4, Math.floor(maxConnections / 2));
}

/** Connections kept free for new requests: past cap minus this, a new stream takes an old one's place. */
export function connectionReserve(maxConnections: number): number {
  return Math.max(8, Math.floor(maxConnections / 8));
}

type StreamKind = 'mcp_get' | 'listen' | 'events';

interface StreamTicket {
  /** Gives the slot back (once, however often called). */
  release(): void;
}

interface Entry {
  readonly id: number;
  readonly owner: string;
  readonly operator: boolean;
  readonly kind: StreamKind;
  readonly socket: Socket | null;
  readonly shed: () => void;
}

/** The socket a hono request arrived on (node-server), if it can be found. */
export function socketOf(c: Context): Socket | null {
  return nodeRequestOf(c)?.socket ?? null;
}

export class LongLivedStreams {
  private readonly entries = new Map<number, Entry>();
  private readonly byOwner = new Map<string, Set<number>>();
  private next = 0;
  private shedCount = 0;

  /** True while the busy connections are within the reserve of the cap (set once the server exists). */
  private crowded: () => boolean = () => false;

  constructor(
    readonly max: number,
    private readonly onShed?: (e: { kind: StreamKind; owner: string; total: number }) => void,
  ) {}

  watchConnections(crowded: () => boolean): void {
    this.crowded = crowded;
  }

  get open(): number {
    return this.entries.size;
  }

  get shed(): number {
    return this.shedCount;
  }

  stats(): { open: number; max: number; shed: number } {
    return { open: this.entries.size, max: this.max, shed: this.shedCount };
  }

  /**
   * Counts a new stream of `owner` (a runtime authorization id, or an
   * operator client). `shed` ends that stream when the budget needs its
   * place; it must (eventually) call release.
   */
  admit(s: {
    owner: string;
    operator?: boolean;
    kind: StreamKind;
    socket?: Socket | null;
    shed: () => void;
  }): StreamTicket {
    // Past the budget an old stream makes room, one for one. When busy connections crowd the cap
    // (leases count there too) two go for one, so streams give way as leases grow.
    const crowded = this.entries.size > 0 && this.crowded();
    if (this.entries.size >= this.max || crowded) this.shedOne();
    if (crowded) this.shedOne();
    const id = ++this.next;
    const e: Entry = {
      id,
      owner: s.owner,
      operator: s.operator ?? false,
      kind: s.kind,
      socket: s.socket ?? null,
      shed: s.shed,
    };
    this.entries.set(id, e);
    let mine = this.byOwner.get(e.owner);
    if (!mine) {
      mine = new Set();
      this.byOwner.set(e.owner, mine);
    }
    mine.add(id);
    return { release: () => this.remove(id) };
  }

  /**
   * Sheds one stream (see the class comment for which); returns its socket
   * (null when the stream's socket is unknown), or undefined when no stream
   * is open. The connection cap destroys that socket to make room.
   */
  shedOne(): Socket | null | undefined {
    const victim = this.pick();
    if (!victim) return undefined;
    this.remove(victim.id);
    this.shedCount++;
    this.onShed?.({ kind: victim.kind, owner: victim.owner, total: this.shedCount });
    try {
      victim.shed();
    } catch {
      // a stream that fails to end is still out of the budget
    }
    return victim.socket;
  }

  /** The oldest stream of the runtime holding the most; operator streams (oldest first) only when no runtime holds one. */
  private pick(): Entry | undefined {
    let best: Set<number> | undefined;
    for (const ids of this.byOwner.values()) {
      const first = this.entries.get(ids.values().next().value as number);
      if (!first || first.operator) continue;
      if (!best || ids.size > best.size) best = ids;
    }
    if (best) return this.entries.get(best.values().next().value as number);
    return this.entries.values().next().value as Entry | undefined;
  }

  private remove(id: number): void {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    const mine = this.byOwner.get(e.owner);
    mine?.delete(id);
    if (mine && mine.size === 0) this.byOwner.delete(e.owner);
  }
}
