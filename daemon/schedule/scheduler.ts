import type { Clock, ClockTimer } from '../../lib/clock.js';
import type { DeliveryOutcome } from '../store/schedule-delivery.js';

/** Something with due times: scheduled messages, schedule triggers of workflows. */
interface DueSource {
  runDue(now: number): Promise<DeliveryOutcome[]>;
  nextDueAt(): Promise<number | null>;
}

/** The longest the scheduler sleeps before looking again, so a jump of the wall clock is noticed. */
const MAX_SLEEP_MS = 60_000;

/**
 * The first wait after a tick that found its earliest due time already past
 * but ran nothing (the row is held by another daemon's delivery, or
 * delivery failed); it doubles with each such tick up to the longest sleep.
 */
export const STALL_BACKOFF_MS = 50;

interface SchedulerOptions {
  /**
   * The longest sleep (default MAX_SLEEP_MS). When given, the scheduler also
   * looks again after this long when nothing is scheduled at all: on a
   * database shared by several daemons, another daemon may create a schedule
   * this one is never told about.
   */
  readonly maxSleepMs?: number;
}

/**
 * Delivers scheduled messages when they fall due. One timer, armed for the
 * earliest due time (at most maxSleepMs ahead), re-armed after every run
 * and whenever a schedule changes; with nothing scheduled there is no timer
 * (unless maxSleepMs was given, see SchedulerOptions). `start()` first runs
 * everything already due: that is the catch-up after downtime (one late run
 * per schedule, see ScheduleDelivery).
 *
 * Ticks never overlap: a tick asked for while one runs waits for it; a wake
 * while a tick delivers is covered by the re-arm that ends the tick. `stop()`
 * resolves once no tick and no re-arm is in flight, so the store can be
 * closed after it.
 */
export class Scheduler {
  private timer: ClockTimer | null = null;
  private stopped = true;
  /** Whether the last tick ran nothing (or failed). */
  private emptyTick = false;
  /** Re-arms in a row that found a due time already past right after an empty tick (see STALL_BACKOFF_MS). */
  private stalled = 0;
  private readonly maxSleepMs: number;
  private readonly pollWhenIdle: boolean;
  /** The last tick asked for (ticks are chained, never concurrent). */
  private ticks: Promise<unknown> = Promise.resolve();
  /** Ticks asked for and not finished. */
  private pendingTicks = 0;
  /** A tick is running its sources (its re-arm has not begun). */
  private delivering = false;
  /** Re-arms in flight (each reads the next due times); only the newest may set the timer. */
  private readonly arms = new Set<Promise<void>>();
  private armSeq = 0;

  constructor(
    private readonly clock: Clock,
    private readonly sources: readonly DueSource[],
    private readonly log: (event: string, detail: Record<string, unknown>) => void = () => {},
    opts: SchedulerOptions = {},
  ) {
    this.maxSleepMs = opts.maxSleepMs ?? MAX_SLEEP_MS;
    this.pollWhenIdle = opts.maxSleepMs !== undefined;
  }

  /** Starts delivering; resolves with what the catch-up tick ran. */
  start(): Promise<DeliveryOutcome[]> {
    this.stopped = false;
    return this.tick();
  }

  /** Stops the timer; resolves once a running tick and any re-arm have finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.armSeq++;
    this.clearTimer();
    await this.idle();
  }

  /** Resolves when no tick and no re-arm is in flight (tests wait on this after moving a fake clock). */
  async idle(): Promise<void> {
    while (this.pendingTicks > 0 || this.arms.size > 0) {
      await Promise.allSettled([this.ticks, ...this.arms]);
    }
  }

  /** A schedule was created or cancelled: look again at the earliest due time. */
  wake(): void {
    this.emptyTick = false;
    // A tick running its sources re-arms when they are done, reading due times after this change.
    if (!this.stopped && !this.delivering) void this.arm();
  }

  /** Runs what is due now and re-arms; resolves with what it ran (tests drive this with a fake clock). */
  tick(): Promise<DeliveryOutcome[]> {
    this.pendingTicks++;
    const run = this.ticks
      .catch(() => {})
      .then(() => this.runOnce())
      .finally(() => {
        this.pendingTicks--;
      });
    this.ticks = run;
    return run;
  }

  private async runOnce(): Promise<DeliveryOutcome[]> {
    let ran: DeliveryOutcome[] = [];
    this.delivering = true;
    try {
      for (const source of this.sources) ran = ran.concat(await source.runDue(this.clock.now()));
      for (const r of ran) if (!r.delivered || r.late) this.log('schedule_run', { ...r });
      this.emptyTick = ran.length === 0;
    } catch (err) {
      this.emptyTick = true;
      this.log('schedule_failed', { error: (err as Error).message });
    } finally {
      this.delivering = false;
    }
    if (!this.stopped) await this.arm();
    return ran;
  }

  private clearTimer(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Reads the earliest due time and sets the timer for it, unless a later re-arm or a stop came meanwhile. */
  private arm(): Promise<void> {
    const seq = ++this.armSeq;
    this.clearTimer();
    const done = this.armFor(seq).finally(() => this.arms.delete(done));
    this.arms.add(done);
    return done;
  }

  private async armFor(seq: number): Promise<void> {
    let wait: number | null;
    try {
      const dues = (await Promise.all(this.sources.map((s) => s.nextDueAt()))).filter(
        (t): t is number => t !== null,
      );
      // Nothing scheduled: no timer at all (creating a schedule wakes the scheduler), unless polling a shared database.
      wait =
        dues.length === 0
          ? this.pollWhenIdle
            ? this.maxSleepMs
            : null
          : Math.min(this.maxSleepMs, Math.max(0, Math.min(...dues) - this.clock.now()));
    } catch (err) {
      // The database could not be read (a shared server away): look again later.
      this.log('schedule_failed', { error: (err as Error).message });
      wait = this.maxSleepMs;
    }
    // Due already, yet the last tick ran nothing: another daemon holds it (or delivery fails). Back off, do not spin.
    if (wait === 0 && this.emptyTick) {
      wait = Math.min(this.maxSleepMs, STALL_BACKOFF_MS * 2 ** Math.min(this.stalled, 10));
      this.stalled++;
    } else {
      this.stalled = 0;
    }
    if (seq !== this.armSeq || this.stopped || wait === null) return;
    this.clearTimer();
    const timer = this.clock.setTimeout(() => {
      if (this.timer === timer) this.timer = null;
      void this.tick();
    }, wait);
    this.timer = timer;
    this.timer.unref?.();
  }
}
