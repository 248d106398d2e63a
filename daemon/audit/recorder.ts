import type { Clock } from '../../lib/clock.js';
import { AuditAppendError, type AuditStore } from '../store/audit.js';
import type { AuditRecord } from '../store/audit-rows.js';
import type { AuditSettings } from './settings.js';

/**
 * What is queued is written AUDIT_FLUSH_MS after the first row of a batch
 * arrived, or as soon as AUDIT_BATCH_ROWS rows wait. The interval, not the count, sets the pace at ordinary
 * rates: about five commits a second however busy the daemon is.
 */
export const AUDIT_FLUSH_MS = 200;
export const AUDIT_BATCH_ROWS = 2_048;
/** Rows kept waiting while the store refuses writes (a PostgreSQL outage); beyond it the oldest are dropped and counted. */
export const AUDIT_QUEUE_MAX = 8_192;
/** Retention runs at most this often (and after every maxRows/10 rows written). */
const AUDIT_TRIM_EVERY_MS = 60_000;
/** After a failed write, the next attempt waits this long. */
const RETRY_MS = 1_000;

interface AuditStats {
  readonly queued: number;
  readonly written: number;
  readonly dropped: number;
  readonly trimmed: number;
  readonly failedWrites: number;
}

/**
 * Takes audit records off the request path: `record` only queues; a timer
 * (AUDIT_FLUSH_MS) or a full batch (AUDIT_BATCH_ROWS) writes what is queued,
 * one write at a time (the store says how: 128-row transactions on the
 * embedded store's writer thread, one transaction on PostgreSQL; rows a
 * failed write did not commit are kept for the next). A clean stop writes everything
 * left; a crash loses what was not yet committed (the batch being gathered
 * and, if one was being written, that one). Retention trims by count and by
 * age (the injected clock) after writes.
 */
export class AuditRecorder {
  private queue: AuditRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private closed = false;
  private lastTrim = Number.NEGATIVE_INFINITY;
  private sinceTrim = 0;
  private failing = false;
  private counts = { written: 0, dropped: 0, trimmed: 0, failedWrites: 0 };

  constructor(
    private readonly store: AuditStore,
    private readonly clock: Clock,
    readonly settings: AuditSettings,
    private readonly diag: (event: string, detail: Record<string, unknown>) => void,
  ) {}

  /** Queues one row; never waits, never throws. */
  record(row: AuditRecord): void {
    if (this.closed) return;
    this.queue.push(row);
    if (this.queue.length > AUDIT_QUEUE_MAX) {
      this.counts.dropped += this.queue.length - AUDIT_QUEUE_MAX;
      this.queue.splice(0, this.queue.length - AUDIT_QUEUE_MAX);
    }
    if (this.queue.length >= AUDIT_BATCH_ROWS && !this.writing) this.schedule(0);
    else if (!this.timer) this.schedule(AUDIT_FLUSH_MS);
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.writeOne();
    }, ms);
    this.timer.unref();
  }

  /** Writes one batch (if none is being written), then re-arms for what is left. */
  private writeOne(): Promise<void> {
    if (this.writing) return this.writing;
    const batch = this.queue.splice(0, AUDIT_BATCH_ROWS);
    if (batch.length === 0) return Promise.resolve();
    this.writing = (async () => {
      try {
        await this.store.append(batch);
        this.counts.written += batch.length;
        this.sinceTrim += batch.length;
        if (this.failing) this.diag('audit_write_recovered', { queued: this.queue.length });
        this.failing = false;
        await this.trimIfDue();
      } catch (err) {
        // What was not written is kept for the next attempt, ahead of newer rows; the queue bound still holds.
        const written = err instanceof AuditAppendError ? err.written : 0;
        this.counts.written += written;
        this.queue.unshift(...batch.slice(written));
        const cause = err instanceof AuditAppendError ? err.cause : err;
        const over = this.queue.length - AUDIT_QUEUE_MAX;
        if (over > 0) {
          this.queue.splice(0, over);
          this.counts.dropped += over;
        }
        this.counts.failedWrites++;
        // Only the error's class and code: row contents never reach the log.
        if (!this.failing)
          this.diag('audit_write_failed', {
            error: (cause as { code?: string }).code ?? (cause as Error)?.name ?? 'error',
            queued: this.queue.length,
          });
        this.failing = true;
      } finally {
        this.writing = null;
      }
      if (this.queue.length > 0 && !this.closed)
        this.schedule(
          this.failing ? RETRY_MS : this.queue.length >= AUDIT_BATCH_ROWS ? 0 : AUDIT_FLUSH_MS,
        );
    })();
    return this.writing;
  }

  private async trimIfDue(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastTrim < AUDIT_TRIM_EVERY_MS && this.sinceTrim < this.settings.maxRows / 10)
      return;
    await this.trim();
  }

  /** Applies retention now: the newest maxRows rows, none older than maxAge. */
  async trim(): Promise<number> {
    const now = this.clock.now();
    this.lastTrim = now;
    this.sinceTrim = 0;
    const removed = await this.store.trim(this.settings.maxRows, now - this.settings.maxAgeMs);
    this.counts.trimmed += removed;
    return removed;
  }

  /** Writes everything queued so far (tests, and the stop). Throws when the store refuses. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.writing || this.queue.length > 0) {
      await (this.writing ?? this.writeOne());
      if (this.failing)
        throw new Error(
          `the audit trail could not be written; ${this.queue.length} rows are still queued`,
        );
    }
  }

  /** The clean stop: no new rows, everything queued written (best effort when the store is gone), then retention once. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
      await this.trim();
    } catch (err) {
      this.diag('audit_lost_on_stop', {
        rows: this.queue.length,
        error: (err as Error)?.name ?? 'error',
      });
    }
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  stats(): AuditStats {
    return { queued: this.queue.length, ...this.counts };
  }
}
