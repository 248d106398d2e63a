import type { Clock, ClockTimer } from '../../lib/clock.js';

/** Anything that can tell listeners the tool list changed. */
export interface ToolChangeFeed {
  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: () => void): () => void;
}

/**
 * Coalesces tool-list changes into at most one notice per interval (one a
 * second by default), for every stream that carries change notices: the 2025
 * GET stream and the 2026 `subscriptions/listen` stream. The first change
 * after a quiet interval is announced at once; changes inside the interval
 * are folded into one notice at its end, so a burst of registrations costs
 * every client one re-list, not one per tool.
 */
export class ChangeNotices implements ToolChangeFeed {
  private readonly listeners = new Set<() => void>();
  private lastSentAt = -Infinity;
  private timer: ClockTimer | undefined;

  constructor(private readonly clock: Clock, private readonly intervalMs = 1_000) {}

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Something in the tool list changed. */
  changed(): void {
    if (this.timer !== undefined) return; // a notice is already due
    const wait = this.lastSentAt + this.intervalMs - this.clock.now();
    if (wait <= 0) return this.send();
    this.timer = this.clock.setTimeout(() => this.send(), wait);
    this.timer.unref?.();
  }

  close(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private send(): void {
    this.timer = undefined;
    this.lastSentAt = this.clock.now();
    for (const l of [...this.listeners]) {
      try {
        l();
      } catch {
        // One broken stream must not stop the notice reaching the others.
      }
    }
  }
}
