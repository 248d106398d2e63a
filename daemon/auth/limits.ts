/** Credential and admission limits (CONTRACT §2); one place so the spec, store and tests agree. */
export const DEFAULT_TTL_MS = 12 * 60 * 60 * 1000;
export const MIN_TTL_MS = 2_000;
/** Rotation happens at this fraction of the TTL, minus up to ROTATE_JITTER of the TTL. */
export const ROTATE_AT = 0.8;
export const ROTATE_JITTER = 0.05;
/** Normal rotation leaves two live generations; a forced rotation may add a third, never more. */
export const MAX_LIVE_GENERATIONS = 3;
export const MAX_LEASES = 512;
export const MAX_INFLIGHT_PER_AUTH = 32;
export const MAX_INFLIGHT_TOTAL = 1024;
/** Cleanup retry backoff: base * 2^n, capped. */
export const CLEANUP_BACKOFF_BASE_MS = 200;
export const CLEANUP_BACKOFF_CAP_MS = 30_000;
/** Retry of a failed renewal: base * 2^n, capped, never past the current generation's expiry. */
export const RENEW_RETRY_BASE_MS = 500;
export const RENEW_RETRY_CAP_MS = 60_000;

export function backoff(base: number, cap: number, attempt: number): number {
  return Math.min(cap, base * 2 ** Math.min(attempt, 20));
}

/** Delay from issue to rotation: ~80% of the TTL with a little downward jitter. */
export function rotationDelay(ttlMs: number, random: () => number): number {
  return Math.max(1, Math.floor(ttlMs * (ROTATE_AT - ROTATE_JITTER * random())));
}
