import type { Env, Hono } from 'hono';
import { ExecError } from '../errors/exec-error.js';

/** Recent diagnostic lines kept for `agentteam daemon logs` (each at most a few hundred bytes). */
const LOG_TAP_LINES = 1000;
const LOG_TAP_DEFAULT = 100;

interface LogEntry {
  /** 1, 2, ... in the order the daemon wrote them; a follower uses it to skip lines it already has. */
  readonly n: number;
  /** One diagnostic line as written to stderr or daemon.log (a JSON object). */
  readonly line: string;
}

/**
 * A bounded copy of what the daemon's diagnostics sink writes, so an operator
 * can read it through the operator API (`GET /api/v1/logs`) and follow it on
 * the event stream (`daemon.log` events) without knowing where the daemon's
 * stderr went. Lines are diagnostics (reasons and ids, never token material);
 * both ways out pass the result gate, which masks known secret values.
 */
export class LogTap {
  private readonly ring: LogEntry[] = [];
  private next = 1;
  private listener: ((e: LogEntry) => void) | null = null;

  constructor(private readonly capacity = LOG_TAP_LINES) {}

  push(line: string): void {
    const e = { n: this.next++, line };
    this.ring.push(e);
    if (this.ring.length > this.capacity) this.ring.shift();
    this.listener?.(e);
  }

  recent(limit: number): LogEntry[] {
    return this.ring.slice(-limit);
  }

  /** Where new lines also go (the event stream); one listener. */
  connect(listener: (e: LogEntry) => void): void {
    this.listener = listener;
  }
}

/**
 * `GET /api/v1/logs?limit=N`: the last N lines (default 100, at most 1000), oldest first.
 * Generic in the app's env: the route reads nothing the runtime-auth middleware sets.
 */
export function registerLogRoutes<E extends Env>(app: Hono<E>, tap: LogTap): void {
  app.get('/api/v1/logs', (c) => {
    const raw = c.req.query('limit');
    const limit =
      raw === undefined ? LOG_TAP_DEFAULT : /^[0-9]{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (!(limit >= 1 && limit <= LOG_TAP_LINES))
      throw new ExecError('invalid_request', `limit must be an integer from 1 to ${LOG_TAP_LINES}`);
    return c.json({ ok: true, data: { entries: tap.recent(limit) } });
  });
}
