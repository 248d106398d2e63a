import type { Clock } from '../../lib/clock.js';
import type { Authorization } from './authorization.js';
import { MAX_INFLIGHT_PER_AUTH, MAX_INFLIGHT_TOTAL, REVOKE_DRAIN_MS } from './limits.js';

/**
 * Requests in flight, per authorization and for the daemon: the slots a
 * request takes once authenticated, and the drain a revocation waits for.
 */
export class Admission {
  /** Requests in flight across every authorization. */
  total = 0;

  /** Takes an in-flight slot, or refuses when the authorization (32) or daemon (1024) is full. */
  admit(auth: Authorization): boolean {
    if (auth.inFlight >= MAX_INFLIGHT_PER_AUTH || this.total >= MAX_INFLIGHT_TOTAL) return false;
    auth.inFlight++;
    this.total++;
    return true;
  }

  release(auth: Authorization): void {
    auth.inFlight--;
    this.total--;
    if (auth.inFlight === 0 && auth.onDrained) auth.onDrained();
  }

  /** Resolves when the authorization has no request in flight, or after REVOKE_DRAIN_MS. */
  drain(
    auth: Authorization,
    clock: Clock,
    diag: ((event: string, detail: Record<string, unknown>) => void) | undefined,
  ): Promise<void> {
    if (auth.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        auth.onDrained = null;
        clock.clearTimeout(timer);
        resolve();
      };
      const timer = clock.setTimeout(() => {
        diag?.('drain_timeout', { authorizationId: auth.id, inFlight: auth.inFlight });
        done();
      }, REVOKE_DRAIN_MS);
      auth.onDrained = done;
    });
  }
}
