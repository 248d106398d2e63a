/**
 * Freezes `value` and every object and array reachable from it, and returns
 * it. For answers a cache hands out again and again (the result gate keeps
 * their screened bodies by identity): a handler that tried to change one
 * would throw instead of changing what other callers, and the kept body,
 * are based on.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as object)) deepFreeze(v);
  return value;
}
