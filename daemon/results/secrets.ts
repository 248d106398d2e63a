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
  /** [name, value] pairs; the name is what replaces the value: `[NAME]`. */
  entries(): Iterable<readonly [string, string]>;
}

export interface Matcher {
  /** How many distinct values are masked. */
  readonly size: number;
  /** Whether any secret (raw, or as it appears inside a JSON string) occurs in `s`. */
  test(s: string): boolean;
  /** `s` with every occurrence replaced by `[NAME]`. */
  replace(s: string): string;
}

const EMPTY: Matcher = { size: 0, test: () => false, replace: (s) => s };

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
    test: (s) => probe.test(s),
    replace: (s) => (probe.test(s) ? s.replace(all, (m) => names.get(m) ?? '[SECRET]') : s),
  };
}

/** Holds the sources; `matcher()` is the current matcher, rebuilt only after a source changed. */
export class SecretSet {
  private readonly sources: SecretSource[] = [];
  private versions: number[] = [];
  private current: Matcher = EMPTY;
  private gen = 0;

  add(source: SecretSource): void {
    this.sources.push(source);
    this.versions = [];
  }

  /** Bumps whenever the matcher is rebuilt (caches of masked output compare it). */
  get generation(): number {
    this.matcher();
    return this.gen;
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
    this.gen++;
    return this.current;
  }
}
