/** What masking by value asks of the set of secrets (`secrets.ts` builds it). */
export interface Matcher {
  /** How many distinct values are masked. */
  readonly size: number;
  /** The distinct labels values are replaced with (`[NAME]`). */
  readonly labels: readonly string[];
  /** The length (UTF-16 units) of the longest masked form: a piece cut from a stream holds back this much less one. */
  readonly longest: number;
  /** Where each occurrence starts and ends in `s` (UTF-16 indexes), left to right. */
  spans(s: string): [number, number][];
  /** The `[NAME]` that replaces exactly this value, if it is one. */
  label(value: string): string | undefined;
  /** Whether any secret (raw, or as it appears inside a JSON string) occurs in `s`. */
  test(s: string): boolean;
  /** `s` with every occurrence replaced by `[NAME]`. */
  replace(s: string): string;
  /** Like `replace`, but each occurrence keeps its line breaks after the name, so line numbers stay true. */
  replaceKeepingLines(s: string): string;
}

export const EMPTY: Matcher = {
  size: 0,
  labels: [],
  longest: 0,
  spans: () => [],
  label: () => undefined,
  test: () => false,
  replace: (s) => s,
  replaceKeepingLines: (s) => s,
};

/** Spans sorted by start, overlaps resolved as one alternation would: the earlier start wins, then the longer. */
export function leftmostLongest(spans: [number, number][]): [number, number][] {
  spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const out: [number, number][] = [];
  for (const sp of spans) if (out.length === 0 || sp[0] >= out[out.length - 1]![1]) out.push(sp);
  return out;
}

/** Names become `[NAME]` inside JSON strings and text: keep them to characters that need no escaping. */
const safeName = (n: string) => n.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 64) || 'SECRET';

/** Each value of at least `minBytes` UTF-8 bytes, raw and as it looks inside a JSON string, with its `[NAME]` (the first name wins). */
export function literalLabels(
  pairs: Iterable<readonly [string, string]>,
  minBytes: number,
): Map<string, string> {
  const labels = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (typeof value !== 'string' || Buffer.byteLength(value, 'utf8') < minBytes) continue;
    const label = `[${safeName(name)}]`;
    if (!labels.has(value)) labels.set(value, label);
    // A value with quotes, backslashes or control characters looks different inside serialized JSON.
    const inJson = JSON.stringify(value).slice(1, -1);
    if (inJson !== value && !labels.has(inJson)) labels.set(inJson, label);
  }
  return labels;
}
