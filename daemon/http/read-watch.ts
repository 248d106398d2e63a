import type { Clock, ClockTimer } from '../../lib/clock.js';

/** One body read in progress: when it must have ended, whose authorization it runs under, how to stop it. */
export interface WatchedRead {
  readonly deadlineAt: number;
  readonly signal: AbortSignal;
  /** Called at most once by the watch, with why the read must stop. */
  readonly stop: (why: 'deadline' | 'revoked') => void;
}

/**
 * Watches every body read in progress with one timer per clock and one abort
 * listener per authorization signal, instead of a timer and a listener per
 * request (together about 5 % of the daemon's CPU per small request).
 *
 * The deadline stays absolute and exact: the timer is always armed for the
 * earliest deadline still pending, and a sweep stops every read whose
 * deadline has passed. Revocation stops the reads of that authorization at
 * once, from its signal's single listener.
 */
export class ReadWatch {
  private readonly pending = new Set<WatchedRead>();
  /** Signals that already carry this watch's abort listener. */
  private readonly listening = new WeakSet<AbortSignal>();
  private timer: ClockTimer | undefined;
  private armedFor = Infinity;

  constructor(private readonly clock: Clock) {}

  add(read: WatchedRead): void {
    if (read.signal.aborted) {
      read.stop('revoked');
      return;
    }
    this.pending.add(read);
    const signal = read.signal;
    if (!this.listening.has(signal)) {
      this.listening.add(signal);
      // Revocation is rare: scanning the reads in progress then is cheaper than indexing them per signal on every read.
      signal.addEventListener(
        'abort',
        () =>
          this.stopAll(
            [...this.pending].filter((r) => r.signal === signal),
            'revoked',
          ),
        { once: true },
      );
    }
    if (read.deadlineAt < this.armedFor) this.arm(read.deadlineAt);
  }

  /** The read ended (any way); forget it. The timer stays armed: firing on an empty watch is cheap. */
  remove(read: WatchedRead): void {
    this.pending.delete(read);
  }

  /** Reads in progress (tests and diagnostics). */
  get size(): number {
    return this.pending.size;
  }

  private stopAll(reads: readonly WatchedRead[], why: 'deadline' | 'revoked'): void {
    for (const r of reads) {
      this.remove(r);
      r.stop(why);
    }
  }

  private arm(at: number): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = this.clock.setTimeout(() => this.sweep(), Math.max(0, at - this.clock.now()));
    // The listening server keeps the daemon alive; this timer alone must not.
    this.timer.unref?.();
  }

  private sweep(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.clock.now();
    const due: WatchedRead[] = [];
    let next = Infinity;
    for (const r of this.pending) {
      if (r.deadlineAt <= now) due.push(r);
      else if (r.deadlineAt < next) next = r.deadlineAt;
    }
    if (next !== Infinity) this.arm(next);
    this.stopAll(due, 'deadline');
  }
}

const watches = new WeakMap<Clock, ReadWatch>();

/** The watch shared by all reads on one clock. */
export function readWatch(clock: Clock): ReadWatch {
  let w = watches.get(clock);
  if (!w) {
    w = new ReadWatch(clock);
    watches.set(clock, w);
  }
  return w;
}
