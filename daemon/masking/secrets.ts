import { createHash } from 'node:crypto';
import { issuedMatcher } from './issued-matcher.js';
import { EMPTY, leftmostLongest, literalLabels, type Matcher } from './matcher.js';

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

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export function buildMatcher(pairs: Iterable<readonly [string, string]>): Matcher {
  const names = literalLabels(pairs, MIN_SECRET_BYTES);
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
    label: (value) => names.get(value),
    test: (s) => probe.test(s),
    replace: (s) => (probe.test(s) ? s.replace(all, (m) => names.get(m) ?? '[SECRET]') : s),
    replaceKeepingLines: (s) =>
      probe.test(s)
        ? s.replace(
            all,
            (m) => (names.get(m) ?? '[SECRET]') + '\n'.repeat(m.split('\n').length - 1),
          )
        : s,
  };
}

/** Both matchers as one: every span of either, overlaps resolved leftmost-longest. */
function combined(a: Matcher, b: Matcher): Matcher {
  if (a.size === 0) return b;
  if (b.size === 0) return a;
  const spans = (s: string) => leftmostLongest([...a.spans(s), ...b.spans(s)]);
  const labelOf = (value: string) => a.label(value) ?? b.label(value) ?? '[SECRET]';
  const once = (s: string, keepLines: boolean) => {
    let out = '';
    let last = 0;
    for (const [x, y] of spans(s)) {
      const value = s.slice(x, y);
      out += s.slice(last, x) + labelOf(value);
      if (keepLines) out += '\n'.repeat(value.split('\n').length - 1);
      last = y;
    }
    return out + s.slice(last);
  };
  // A configured value and a token that overlap in the text: the one that starts first is
  // replaced and the other may survive the pass, so passes repeat while either still matches.
  const replaceWith = (s: string, keepLines: boolean) => {
    let out = s;
    for (let pass = 0; pass < 4 && (a.test(out) || b.test(out)); pass++) out = once(out, keepLines);
    return out;
  };
  return {
    size: a.size + b.size,
    labels: [...new Set([...a.labels, ...b.labels])],
    longest: Math.max(a.longest, b.longest),
    spans,
    label: (value) => a.label(value) ?? b.label(value),
    test: (s) => a.test(s) || b.test(s),
    replace: (s) => replaceWith(s, false),
    replaceKeepingLines: (s) => replaceWith(s, true),
  };
}

/**
 * Holds the sources; `matcher()` is the current matcher, rebuilt only after a
 * source changed. Configured values (few, rarely changing) share one regular
 * expression; issued tokens (many, changing with every lease) are kept in an
 * index whose rebuild is a few map insertions (`issued-matcher.ts`), so
 * hundreds of leases opening or ending never recompile the expression.
 */
export class SecretSet {
  private readonly sources: SecretSource[] = [];
  private versions: number[] = [];
  private fixed: Matcher = EMPTY;
  private issued: Matcher = EMPTY;
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
      for (const s of this.sources)
        if (!s.issued)
          for (const [, v] of s.entries())
            if (typeof v === 'string' && Buffer.byteLength(v, 'utf8') >= MIN_SECRET_BYTES)
              values.add(v);
      for (const v of [...values].sort()) h.update(v).update('\u0000');
      this.fp = h.digest('base64url').slice(0, 22);
    }
    return this.fp;
  }

  matcher(): Matcher {
    const n = this.sources.length;
    const fresh = this.versions.length !== n;
    let fixedMoved = fresh;
    let issuedMoved = fresh;
    for (let i = 0; !fresh && i < n; i++) {
      const src = this.sources[i]!;
      if (src.version() === this.versions[i]) continue;
      if (src.issued) issuedMoved = true;
      else fixedMoved = true;
    }
    if (!fixedMoved && !issuedMoved) return this.current;
    this.versions = this.sources.map((s) => s.version());
    const pairsOf = (issued: boolean) => {
      const pairs: (readonly [string, string])[] = [];
      for (const s of this.sources)
        if (Boolean(s.issued) === issued) for (const p of s.entries()) pairs.push(p);
      return pairs;
    };
    if (fixedMoved) {
      this.fixed = buildMatcher(pairsOf(false));
      this.fp = undefined;
    }
    if (issuedMoved) this.issued = issuedMatcher(pairsOf(true), MIN_SECRET_BYTES) ?? EMPTY;
    this.current = combined(this.fixed, this.issued);
    this.gen++;
    return this.current;
  }
}
