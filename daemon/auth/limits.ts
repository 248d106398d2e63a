/** Credential and admission limits (CONTRACT §2); one place so the spec, store and tests agree. */
export const DEFAULT_TTL_MS = 12 * 60 * 60 * 1000;
export const MIN_TTL_MS = 2_000;
/** Rotation happens at this fraction of the TTL, minus up to ROTATE_JITTER of the TTL. */
export const ROTATE_AT = 0.8;
export const ROTATE_JITTER = 0.05;
/**
 * Forced rotations (operator route) may add at most this many live
 * generations; one more is refused with `busy` until one of them expires.
 * Nothing ever drops an unexpired generation to make room.
 */
export const MAX_LIVE_FORCED_GENERATIONS = 4;
/** How long a revocation waits for the runtime's in-flight requests to end after aborting them. */
export const REVOKE_DRAIN_MS = 3_000;
export const MAX_LEASES = 512;
export const MAX_INFLIGHT_PER_AUTH = 32;
export const MAX_INFLIGHT_TOTAL = 1024;
/** Cleanup retry backoff: base * 2^n, capped. */
export const CLEANUP_BACKOFF_BASE_MS = 200;
export const CLEANUP_BACKOFF_CAP_MS = 30_000;
/** Retry of a failed renewal: base * 2^n, capped, never past the current generation's expiry. */
export const RENEW_RETRY_BASE_MS = 500;
export const RENEW_RETRY_CAP_MS = 60_000;

/** Shortest possible delay between two scheduled issues (the rotation point with full jitter). */
export function minRotationDelay(ttlMs: number): number {
  return Math.max(1, Math.floor(ttlMs * (ROTATE_AT - ROTATE_JITTER)));
}

/**
 * Scheduled rotations alone never have more live generations than this: a
 * generation lives at most TTL + clock tolerance after its issue, and two
 * scheduled issues are at least minRotationDelay apart (a failed issue only
 * delays the next one). 2 for the default 12 h TTL, 5 for the 2 s minimum.
 */
export function scheduledLiveBound(ttlMs: number, toleranceMs: number): number {
  return Math.floor((ttlMs + toleranceMs) / minRotationDelay(ttlMs)) + 1;
}

/** The most live generations one authorization can hold: scheduled plus forced. */
export function liveGenerationBound(ttlMs: number, toleranceMs: number): number {
  return scheduledLiveBound(ttlMs, toleranceMs) + MAX_LIVE_FORCED_GENERATIONS;
}

export function backoff(base: number, cap: number, attempt: number): number {
  return Math.min(cap, base * 2 ** Math.min(attempt, 20));
}

/** Delay from issue to rotation: ~80% of the TTL with a little downward jitter. */
export function rotationDelay(ttlMs: number, random: () => number): number {
  return Math.max(
    minRotationDelay(ttlMs),
    Math.floor(ttlMs * (ROTATE_AT - ROTATE_JITTER * random())),
  );
}
