import type { Clock } from '../../lib/clock.js';
import type { Authorization, Generation } from './authorization.js';
import { backoff, rotationDelay, RENEW_RETRY_BASE_MS, RENEW_RETRY_CAP_MS } from './limits.js';
import { countRotation } from '../telemetry/instruments.js';

type Diag = (event: string, detail: Record<string, unknown>) => void;

/**
 * Proactive token rotation: one timer per authorization, issues serialized.
 * A failed issue or publish keeps the current generation and file and is
 * retried with backoff, never later than half the time the current token has left.
 */
export class Renewal {
  private readonly inProgress = new WeakMap<Authorization, Promise<Generation>>();

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number,
    private readonly issue: (auth: Authorization, forced: boolean) => Promise<Generation>,
    private readonly diag?: Diag,
  ) {}

  schedule(auth: Authorization, delayMs = rotationDelay(auth.ttlMs, this.random)): void {
    this.cancel(auth);
    const timer = this.clock.setTimeout(() => {
      auth.renewTimer = null;
      void this.run(auth);
    }, delayMs);
    timer.unref?.();
    auth.renewTimer = timer;
  }

  cancel(auth: Authorization): void {
    if (auth.renewTimer) this.clock.clearTimeout(auth.renewTimer);
    auth.renewTimer = null;
  }

  /**
   * Issues a new generation after any issue already running; reschedules the
   * next rotation on success. `forced` marks an operator's rotation (capped).
   */
  rotateNow(auth: Authorization, forced = false): Promise<Generation> {
    const prev = this.inProgress.get(auth);
    const p = (prev ? prev.then(noop, noop) : Promise.resolve()).then(() =>
      this.issue(auth, forced),
    );
    this.inProgress.set(auth, p);
    return p.then(
      (gen) => {
        if (this.inProgress.get(auth) === p) this.inProgress.delete(auth);
        auth.renewFailures = 0;
        countRotation(forced);
        if (auth.live) this.schedule(auth);
        return gen;
      },
      (err: unknown) => {
        if (this.inProgress.get(auth) === p) this.inProgress.delete(auth);
        throw err;
      },
    );
  }

  private async run(auth: Authorization): Promise<void> {
    if (!auth.live) return;
    try {
      await this.rotateNow(auth);
    } catch (err) {
      if (!auth.live) return;
      const newest = auth.generations[auth.generations.length - 1];
      const left = newest ? newest.expiresAtMs - this.clock.now() : 0;
      let delay = backoff(RENEW_RETRY_BASE_MS, RENEW_RETRY_CAP_MS, auth.renewFailures++);
      if (left > 0) delay = Math.min(delay, Math.max(100, Math.floor(left / 2)));
      this.diag?.('renew_failed', {
        authorizationId: auth.id,
        attempt: auth.renewFailures,
        retryInMs: delay,
        error: String((err as Error)?.message ?? err),
      });
      this.schedule(auth, delay);
    }
  }
}

function noop(): void {}
