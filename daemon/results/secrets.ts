import { createHash } from 'node:crypto';

/**
 * The secret values the result gate masks, by value: whatever they look
 * like, wherever they occur. Values come from sources that each report a
 * version; the one matcher (a single regular expression of escaped
 * literals, longest first) is rebuilt only when some version changes, so the
 * per-result cost is a few number comparisons plus one regex scan.
 */

/** Values shorter than this many UTF-8 bytes are not masked: too short to be a credential, too likely to hit ordinary text. */
export const MIN_SECRET_BYTES = 8;

export interface SecretSource {
  /** Changes whenever `entries()` would return something different. */
  version(): number;
  /**
   * Values that exist only from the moment they are issued (runtime tokens): no file written
   * before then can hold one, so indexes need not be rebuilt when they come and go.
   */
  readonly issued?: boolean;
  /** [name, value] pairs; the name is what replaces the value: `[NAME]`. */
  entries(): Iterable<readonly [string, string]>;
}

export interface Matcher {
  /** How many distinct values are masked. */
  readonly size: number;
  /** The distinct labels values are replaced with (`[NAME]`). */
  readonly labels: readonly string[];
  /** The length (UTF-16 units) of the longest masked form: a piece cut from a stream holds back this much less one. */
  readonly longest: number;
  /** Where each occurrence starts and ends in `s` (UTF-16 indexes), left to right. */
  spans(s: string): [number, number][];
  /** Whether any secret (raw, or as it appears inside a JSON string) occurs in `s`. */
  test(s: string): boolean;
  /** `s` with every occurrence replaced by `[NAME]`. */
  replace(s: string): string;
  /** Like `replace`, but each occurrence keeps its line breaks after the name, so line numbers stay true. */
  replaceKeepingLines(s: string): string;
}

const EMPTY: Matcher = { size: 0, labels: [], longest: 0, spans: () => [], test: () => false, replace: (s) => s, replaceKeepingLines: (s) => s };

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Names become `[NAME]` inside JSON strings and text: keep them to characters that need no escaping. */
const safeName = (n: string) => n.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 64) || 'SECRET';

export function buildMatcher(pairs: Iterable<readonly [string, string]>): Matcher {
  const names = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (typeof value !== 'string' || Buffer.byteLength(value, 'utf8') < MIN_SECRET_BYTES) continue;
    const label = `[${safeName(name)}]`;
    if (!names.has(value)) names.set(value, label);
    // A value with quotes, backslashes or control characters looks different inside serialized JSON.
    const inJson = JSON.stringify(value).slice(1, -1);
    if (inJson !== value && !names.has(inJson)) names.set(inJson, label);
  }
  if (names.size === 0) return EMPTY;
  const literals = [...names.keys()].sort((a, b) => b.length - a.length);
  const source = literals.map(escapeRe).join('|');
  const probe = new RegExp(source);
  const all = new RegExp(source, 'g');
  return {
    size: names.size,
    labels: [...new Set(names.values())],
    longest: literals[0]!.length,
    spans: (s) => [...s.matchAll(all)].map((m) => [m.index, m.index + m[0].length]),
    test: (s) => probe.test(s),
    replace: (s) => (probe.test(s) ? s.replace(all, (m) => names.get(m) ?? '[SECRET]') : s),
    replaceKeepingLines: (s) => (probe.test(s) ? s.replace(all, (m) => (names.get(m) ?? '[SECRET]') + '\n'.repeat(m.split('\n').length - 1)) : s),
  };
}

/** Holds the sources; `matcher()` is the current matcher, rebuilt only after a source changed. */
export class SecretSet {
  private readonly sources: SecretSource[] = [];
  private versions: number[] = [];
  private current: Matcher = EMPTY;
  private gen = 0;
  private fp: string | undefined;

  add(source: SecretSource): void {
    this.sources.push(source);
    this.versions = [];
  }

  /** Bumps whenever the matcher is rebuilt (caches of masked output compare it). */
  get generation(): number {
    this.matcher();
    return this.gen;
  }

  /**
   * A digest of the values that do not come from issued tokens: text masked and kept (the
   * knowledge indexes) is rebuilt when this changes (a reload that adds a credential).
   */
  fingerprint(): string {
    this.matcher();
    if (this.fp === undefined) {
      const h = createHash('sha256');
      const values = new Set<string>();
      for (const s of this.sources) if (!s.issued) for (const [, v] of s.entries()) if (typeof v === 'string' && Buffer.byteLength(v, 'utf8') >= MIN_SECRET_BYTES) values.add(v);
      for (const v of [...values].sort()) h.update(v).update('\u0000');
      this.fp = h.digest('base64url').slice(0, 22);
    }
    return this.fp;
  }

  matcher(): Matcher {
    const n = this.sources.length;
    let same = this.versions.length === n;
    for (let i = 0; same && i < n; i++) same = this.sources[i]!.version() === this.versions[i];
    if (same) return this.current;
    this.versions = this.sources.map((s) => s.version());
    const pairs: (readonly [string, string])[] = [];
    for (const s of this.sources) for (const p of s.entries()) pairs.push(p);
    this.current = buildMatcher(pairs);
    this.fp = undefined;
    this.gen++;
    return this.current;
  }
}
