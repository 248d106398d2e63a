import { readFileSync } from 'node:fs';
import type { Server, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Descriptors kept free of client connections: the store (database, WAL,
 * shared memory), stdio, libuv's own (epoll, eventfd, signal pipe, thread
 * pool), the log, and short-lived opens per runtime (token file and its
 * temporary, the private directory for fsync, driver configs). A quarter of
 * the limit, at least 48, covers these with room for growth.
 */
const MIN_HEADROOM = 48;
/** More concurrent connections than a single user's loopback daemon needs; bounds memory too. */
const MAX_CONNECTIONS_CEILING = 4096;
/** Below this many client connections the daemon could not serve a handful of runtimes: refuse to start. */
const MIN_CONNECTIONS = 16;
/** A connection must deliver its complete request header within this time (then 408 and close). */
const HEADERS_TIMEOUT_MS = 5_000;
/** The whole request (header and body) within this time; responses (NDJSON lease, SSE) are not bounded by it. */
const REQUEST_TIMEOUT_MS = 30_000;
/** How often Node sweeps connections for the two timeouts above. */
const CONNECTIONS_CHECK_MS = 1_000;

/** The soft RLIMIT_NOFILE of this process (Linux /proc); 1024, the usual default, where unknown. */
function descriptorLimit(): number {
  try {
    const m = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) return m[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(m[1]);
  } catch {
    // not Linux
  }
  return 1024;
}

export interface ConnectionBudget {
  readonly descriptorLimit: number;
  readonly headroom: number;
  readonly maxConnections: number;
}

export function connectionBudget(limit = descriptorLimit()): ConnectionBudget {
  const headroom = Math.max(MIN_HEADROOM, Math.ceil(limit / 4));
  const maxConnections = Math.min(MAX_CONNECTIONS_CEILING, limit - headroom);
  if (maxConnections < MIN_CONNECTIONS) {
    throw new Error(
      `the open-file limit (${limit}) is too low: the daemon needs at least ${MIN_CONNECTIONS + MIN_HEADROOM} (raise ulimit -n)`,
    );
  }
  return { descriptorLimit: limit, headroom, maxConnections };
}

/**
 * The kernel's queue of accepted-but-not-yet-taken connections. Node takes
 * the whole queue in one go before it reads from any of them; a queue longer
 * than the cap would let a flood evict a client accepted in the same batch
 * before its request header is read. A quarter of the cap keeps several
 * batches inside it.
 */
export function listenBacklog(b: ConnectionBudget): number {
  return Math.max(8, Math.floor(b.maxConnections / 4));
}

/** Options for http.createServer that enforce the header and request deadlines. */
export const serverTimeouts = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
} as const;

/**
 * Keeps at most `max` client connections open. At the cap, a new connection
 * evicts the oldest one that has no request in progress (still sending its
 * header, or idle between keep-alive requests); only when every open
 * connection is serving a request is the new one refused. So a flood of idle
 * or half-header connections cannot lock out a client that sends a complete
 * request, and a runtime's long-lived lease stream is never evicted. When
 * every connection is busy, `shedStream` may end one long-lived notification
 * stream (daemon/http/stream-budget.ts) and name its socket, which is closed
 * to make the room; only when it has none is the newcomer refused.
 */
export function capConnections(
  srv: Server,
  max: number,
  onShed: (n: number) => void,
  shedStream?: () => Socket | null | undefined,
): { open(): number; busy(): number; shed(): number } {
  const busy = new Map<Socket, number>();
  let shed = 0;
  const drop = (s: Socket) => {
    shed++;
    onShed(shed);
    s.destroy();
  };
  srv.on('connection', (socket: Socket) => {
    if (busy.size >= max) {
      let victim: Socket | undefined;
      for (const [s, n] of busy) {
        if (n === 0) {
          victim = s;
          break;
        }
      }
      // No idle one: a long-lived stream makes room (its socket, when known and still counted).
      for (let tries = 0; !victim && shedStream && tries < 8; tries++) {
        const s = shedStream();
        if (s === undefined) break;
        if (s && busy.has(s)) victim = s;
      }
      if (!victim) return drop(socket);
      busy.delete(victim);
      drop(victim);
    }
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  srv.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const n = busy.get(socket);
    if (n === undefined) return;
    busy.set(socket, n + 1);
    res.once('close', () => {
      const m = busy.get(socket);
      if (m !== undefined) busy.set(socket, Math.max(0, m - 1));
    });
  });
  const serving = () => {
    let n = 0;
    for (const v of busy.values()) if (v > 0) n++;
    return n;
  };
  return { open: () => busy.size, busy: serving, shed: () => shed };
}
