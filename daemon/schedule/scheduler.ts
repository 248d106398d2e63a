import type { Clock, ClockTimer } from '../../lib/clock.js';
import type { DeliveryOutcome } from '../store/schedule-delivery.js';

/** Something with due times: scheduled messages, schedule triggers of workflows. */
export interface DueSource {
  runDue(now: number): DeliveryOutcome[];
  nextDueAt(): number | null;
}

/** The longest the scheduler sleeps before looking again, so a jump of the wall clock is noticed. */
export const MAX_SLEEP_MS = 60_000;

/**
 * Delivers scheduled messages when they fall due. One timer, armed for the
 * earliest due time (at most MAX_SLEEP_MS ahead), re-armed after every run
 * and whenever a schedule changes; with nothing scheduled there is no timer.
 * `start()` first runs everything already
 * due: that is the catch-up after downtime (one late run per schedule, see
 * ScheduleDelivery).
 */
export class Scheduler {
  private timer: ClockTimer | null = null;
  private stopped = true;

  constructor(
    private readonly clock: Clock,
    private readonly sources: readonly DueSource[],
    private readonly log: (event: string, detail: Record<string, unknown>) => void = () => {},
  ) {}

  start(): void {
    this.stopped = false;
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** A schedule was created or cancelled: look again at the earliest due time. */
  wake(): void {
    if (!this.stopped) this.arm();
  }

  /** Runs what is due now and re-arms; returns what it ran (tests drive this with a fake clock). */
  tick(): DeliveryOutcome[] {
    let ran: DeliveryOutcome[] = [];
    try {
      for (const source of this.sources) ran = ran.concat(source.runDue(this.clock.now()));
      for (const r of ran) if (!r.delivered || r.late) this.log('schedule_run', { ...r });
    } catch (err) {
      this.log('schedule_failed', { error: (err as Error).message });
    }
    if (!this.stopped) this.arm();
    return ran;
  }

  private arm(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    const dues = this.sources.map((s) => s.nextDueAt()).filter((t): t is number => t !== null);
    this.timer = null;
    // Nothing scheduled: no timer at all; creating a schedule wakes the scheduler.
    if (dues.length === 0) return;
    const wait = Math.min(MAX_SLEEP_MS, Math.max(0, Math.min(...dues) - this.clock.now()));
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.tick();
    }, wait);
    this.timer.unref?.();
  }
}
