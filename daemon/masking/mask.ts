import type { Matcher } from './matcher.js';

/** Masking could not be done without changing the shape of the value (two keys became one, a secret spans strings). */
export class MaskError extends Error {
  override name = 'MaskError';
}

/**
 * A copy of a JSON value with every string masked, object keys included.
 * Throws MaskError when masking two keys makes them equal: dropping one would
 * lose data silently.
 */
export function maskValue(v: unknown, m: Matcher): unknown {
  if (typeof v === 'string') return m.replace(v);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => maskValue(x, m));
  const json = (v as { toJSON?: unknown }).toJSON;
  if (typeof json === 'function') return maskValue((v as { toJSON(): unknown }).toJSON(), m);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === undefined || typeof x === 'function') continue;
    const key = m.replace(k);
    if (Object.hasOwn(out, key)) throw new MaskError(`masking made two keys equal (${key})`);
    setOwn(out, key, maskValue(x, m));
  }
  return out;
}

/**
 * Sets an own, enumerable property, whatever its name: `out[key] = v` with
 * the key `__proto__` (which JSON.parse makes an ordinary key) would set
 * the copy's prototype instead, and the key would vanish from its JSON.
 */
export function setOwn(out: Record<string, unknown>, key: string, v: unknown): void {
  Object.defineProperty(out, key, {
    value: v,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
