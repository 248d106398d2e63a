/** Whether `v` is a promise or promise-like (what an `await` would wait for). */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function'
  );
}
