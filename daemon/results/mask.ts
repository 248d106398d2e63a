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
    out[key] = maskValue(x, m);
  }
  return out;
}
