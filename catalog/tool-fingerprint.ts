import { createHash } from 'node:crypto';

/**
 * Descriptor fingerprints: SHA-256 (lowercase hex) of the effective
 * descriptor serialized canonically: object keys sorted by UTF-16 code
 * units at every level, array order kept, no whitespace. The same tool with
 * its keys written in another order has the same fingerprint; any change of
 * name, description, schema or timeout (the default made explicit) changes
 * it. A delegated scope saves fingerprints, so a tool that changed since is
 * no longer the tool the scope allowed. Pure.
 */

export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

export function toolFingerprint(effectiveDescriptor: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(effectiveDescriptor), 'utf8').digest('hex');
}

export const FINGERPRINT_RE = /^[0-9a-f]{64}$/;
