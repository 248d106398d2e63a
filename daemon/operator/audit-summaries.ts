import type { Clock } from '../../lib/clock.js';
import type { AuditQuery, AuditStore } from '../store/audit.js';

type Filter = Pick<AuditQuery, 'serverId' | 'agentId' | 'tool'>;

/**
 * How long an answer may still be served after rows have aged out of its
 * window, when nothing was written since: an idle daemon under open console
 * tabs counts again once a minute, not every time a row turns an hour old.
 * The answer's `since` then names the older cutoff it really covers.
 */
const AGING_SLACK_MS = 60_000;
/** On a shared store other daemons' writes do not move this daemon's revision: an answer is reused at most this long there. */
const SHARED_FRESH_MS = 1_000;
/** Distinct questions kept (each filter is one); beyond it the least recently asked idle one goes. */
const MAX_SLOTS = 64;

interface Computed<T> {
  readonly value: T;
  readonly cutoff: number;
  /** The oldest call in the window (null: none): until it ages out the answer is exact for a later cutoff too. */
  readonly oldest: number | null;
  readonly revision: number;
  /** Which computation this was (a counter): a request accepts any that started after it arrived. */
  readonly epoch: number;
  readonly startedAt: number;
  readonly endedAt: number;
}

interface Slot {
  done: Computed<unknown> | null;
  running: Promise<unknown> | null;
}

/**
 * The audit summary and per-minute counts, computed once per change and
 * shared by every reader: each console tab's live round and each
 * `agentteam audit --summary` asks here, and one computation (on the
 * store's reading thread) answers everyone waiting for the same question.
 * An answer is reused while this daemon has written nothing to the trail
 * and no row has left its window; otherwise the next computation starts
 * when the one running ends, after resting as long as that one worked, so
 * a busy trail keeps the reading thread at most half busy.
 */
export class AuditSummaries {
  private readonly slots = new Map<string, Slot>();
  private epoch = 0;

  constructor(
    private readonly log: AuditStore,
    private readonly clock: Clock,
  ) {}

  /** Calls, errors and p50/p95 per tool and per agent over the last `windowMs`, and the cutoff the answer starts at. */
  summary(windowMs: number, filter: Filter) {
    return this.read('summary', windowMs, filter, (since) => this.log.summary(since, filter));
  }

  /** Calls and errors per minute over the last `windowMs`, and the cutoff the answer starts at. */
  minutes(windowMs: number, filter: Filter) {
    return this.read('minutes', windowMs, filter, (since) => this.log.perMinute(since, filter));
  }

  private async read<T>(
    kind: string,
    windowMs: number,
    filter: Filter,
    compute: (since: number) => Promise<T>,
  ): Promise<{ since: number; value: T }> {
    const slot = this.slot(
      JSON.stringify([
        kind,
        windowMs,
        filter.serverId ?? null,
        filter.agentId ?? null,
        filter.tool ?? null,
      ]),
    );
    const arrived = this.epoch;
    for (;;) {
      const done = slot.done as Computed<T> | null;
      if (done) {
        // Begun after this request arrived: it saw every row written before, and its since says where it starts.
        if (done.epoch > arrived) return { since: done.cutoff, value: done.value };
        const cutoff = this.clock.now() - windowMs;
        const exact = done.oldest === null || cutoff <= done.oldest;
        if (this.fresh(done) && (exact || this.clock.now() - done.startedAt < AGING_SLACK_MS))
          return { since: exact ? cutoff : done.cutoff, value: done.value };
      }
      slot.running ??= this.compute(slot, windowMs, filter, compute).finally(
        () => (slot.running = null),
      );
      try {
        await slot.running;
      } catch (err) {
        if (slot.done === done) throw err;
      }
    }
  }

  private slot(key: string): Slot {
    let slot = this.slots.get(key);
    if (slot) this.slots.delete(key);
    else slot = { done: null, running: null };
    // Re-inserted: the map's order is the order of last asking.
    this.slots.set(key, slot);
    for (const [k, s] of this.slots) {
      if (this.slots.size <= MAX_SLOTS) break;
      if (!s.running && s !== slot) this.slots.delete(k);
    }
    return slot;
  }

  /** Nothing written since it was computed (as far as this daemon can tell). */
  private fresh(done: Computed<unknown>): boolean {
    if (done.revision !== this.log.revision) return false;
    return !this.log.shared || this.clock.now() - done.endedAt < SHARED_FRESH_MS;
  }

  private async compute<T>(
    slot: Slot,
    windowMs: number,
    filter: Filter,
    compute: (since: number) => Promise<T>,
  ): Promise<void> {
    const last = slot.done;
    if (last) await this.rest(last.endedAt + (last.endedAt - last.startedAt) - this.clock.now());
    const epoch = ++this.epoch;
    const revision = this.log.revision;
    const startedAt = this.clock.now();
    const cutoff = startedAt - windowMs;
    const [value, oldest] = await Promise.all([compute(cutoff), this.log.oldest(cutoff, filter)]);
    slot.done = { value, cutoff, oldest, revision, epoch, startedAt, endedAt: this.clock.now() };
  }

  private rest(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => this.clock.setTimeout(resolve, ms).unref?.());
  }
}
