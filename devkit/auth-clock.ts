import type { Clock, ClockTimer } from '../lib/clock.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A manual clock: time moves only through advance(), which fires due timers in order. */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    this.timers.push(p);
    return p as unknown as ClockTimer;
  }

  clearTimeout(timer: ClockTimer): void {
    (timer as unknown as Pending).cancelled = true;
  }

  /** The time of the next pending timer, if any. */
  nextAt(): number | undefined {
    const live = this.timers.filter((p) => !p.cancelled);
    return live.length ? Math.min(...live.map((p) => p.at)) : undefined;
  }

  /** Moves time forward by ms, running every timer that falls due (in due order). */
  advance(ms: number): void {
    const target = this.t + ms;
    while (this.fireNext(target));
    this.t = target;
  }

  /** Runs the earliest live timer due by `target` (time moves to it); false when there is none. */
  private fireNext(target: number): boolean {
    this.timers = this.timers.filter((p) => !p.cancelled);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const next = this.timers[0];
    if (!next || next.at > target) return false;
    this.timers.shift();
    this.t = Math.max(this.t, next.at);
    next.fn();
    return true;
  }

  /**
   * advance() for timers whose work goes on asynchronously (the scheduler's
   * ticks): waits for `settle` before the first timer and after each one, so
   * the timers that work sets are seen before time moves on.
   */
  async advanceAsync(ms: number, settle: () => Promise<void>): Promise<void> {
    const target = this.t + ms;
    await settle();
    while (this.fireNext(target)) await settle();
    this.t = target;
  }
}
