import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The audit trail's settings, from `$AGENTTEAM_HOME/audit.json` (optional;
 * read once at start):
 * `{"enabled": true, "recordPayloads": false, "payloadBytes": 4096, "maxRows": 100000, "maxAgeDays": 30}`.
 */
export interface AuditSettings {
  /** Record one row per agent call (default on). */
  readonly enabled: boolean;
  /** The operator's opt-in: keep each call's arguments and result, masked by the result gate and cut to payloadBytes. */
  readonly recordPayloads: boolean;
  readonly payloadBytes: number;
  /** Retention: the newest maxRows rows, none older than maxAgeDays. */
  readonly maxRows: number;
  readonly maxAgeMs: number;
}

export const AUDIT_DEFAULTS: AuditSettings = {
  enabled: true,
  recordPayloads: false,
  payloadBytes: 4096,
  maxRows: 100_000,
  maxAgeMs: 30 * 86_400_000,
};

export class AuditSettingsError extends Error {
  override name = 'AuditSettingsError';
}

const KEYS = new Set(['enabled', 'recordPayloads', 'payloadBytes', 'maxRows', 'maxAgeDays']);

/** Reads and checks audit.json; a missing file is the defaults, a bad one a clear error (the daemon does not start). */
export function readAuditSettings(home: string): AuditSettings {
  const path = join(home, 'audit.json');
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return AUDIT_DEFAULTS;
    throw err;
  }
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new AuditSettingsError(`${path}: not valid JSON`);
  }
  return parseAuditSettings(v, path);
}

export function parseAuditSettings(v: unknown, where = 'audit settings'): AuditSettings {
  const bad = (m: string) => new AuditSettingsError(`${where}: ${m}`);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('must be a JSON object');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KEYS.has(k)) throw bad(`unknown setting "${k}" (known: ${[...KEYS].join(', ')})`);
  const bool = (k: string, d: boolean) => {
    if (o[k] === undefined) return d;
    if (typeof o[k] !== 'boolean') throw bad(`${k} must be true or false`);
    return o[k] as boolean;
  };
  const int = (k: string, d: number, min: number, max: number) => {
    if (o[k] === undefined) return d;
    if (!Number.isInteger(o[k]) || (o[k] as number) < min || (o[k] as number) > max)
      throw bad(`${k} must be an integer from ${min} to ${max}`);
    return o[k] as number;
  };
  return {
    enabled: bool('enabled', AUDIT_DEFAULTS.enabled),
    recordPayloads: bool('recordPayloads', AUDIT_DEFAULTS.recordPayloads),
    payloadBytes: int('payloadBytes', AUDIT_DEFAULTS.payloadBytes, 64, 65_536),
    maxRows: int('maxRows', AUDIT_DEFAULTS.maxRows, 100, 10_000_000),
    maxAgeMs: int('maxAgeDays', AUDIT_DEFAULTS.maxAgeMs / 86_400_000, 1, 3650) * 86_400_000,
  };
}
