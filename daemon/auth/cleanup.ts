import type { Clock } from '../../lib/clock.js';
import type { Authorization } from './authorization.js';
import type { DirRemover } from './private-dir.js';
import { backoff, CLEANUP_BACKOFF_BASE_MS, CLEANUP_BACKOFF_CAP_MS } from './limits.js';

type Diag = (event: string, detail: Record<string, unknown>) => void;

/**
 * Removes credential directories of revoked authorizations. Access is already
 * gone before removal starts; a failure only leaves cleanup debt, retried with
 * capped exponential backoff, and the record keeps counting as a lease.
 */
export class CleanupQueue {
  private readonly debt = new Set<Authorization>();

  constructor(
    private readonly clock: Clock,
    private readonly remover: DirRemover,
    private readonly onGone: (auth: Authorization) => void,
    private readonly diag?: Diag,
  ) {}

  /** Starts removal; resolves after the first attempt, successful or not. */
  start(auth: Authorization): Promise<void> {
    return this.attempt(auth);
  }

  private async attempt(auth: Authorization): Promise<void> {
    try {
      await this.remover(auth.dir);
    } catch (err) {
      auth.state = 'cleanup_retry';
      this.debt.add(auth);
      const delay = backoff(
        CLEANUP_BACKOFF_BASE_MS,
        CLEANUP_BACKOFF_CAP_MS,
        auth.cleanupAttempts++,
      );
      this.diag?.('cleanup_failed', {
        authorizationId: auth.id,
        attempt: auth.cleanupAttempts,
        retryInMs: delay,
        error: String((err as Error)?.message ?? err),
      });
      const timer = this.clock.setTimeout(() => {
        auth.cleanupTimer = null;
        void this.attempt(auth);
      }, delay);
      timer.unref?.();
      auth.cleanupTimer = timer;
      return;
    }
    auth.state = 'gone';
    this.debt.delete(auth);
    this.onGone(auth);
  }

  /** Shutdown: one more immediate attempt for every directory still owed. */
  async flush(): Promise<void> {
    await Promise.all(
      [...this.debt].map((auth) => {
        if (auth.cleanupTimer) this.clock.clearTimeout(auth.cleanupTimer);
        auth.cleanupTimer = null;
        return this.attempt(auth);
      }),
    );
  }
}
