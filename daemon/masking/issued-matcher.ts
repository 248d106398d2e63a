import { literalLabels, type Matcher } from './matcher.js';

/**
 * A matcher for issued values (runtime tokens): hundreds of long literals
 * that come and go with every lease. One regular expression over them costs
 * a compile per change, O(total length), and a scan that grows with their
 * count; here a change costs O(count) map insertions and a scan costs one
 * `indexOf` per distinct head (tokens of one signer share their header, so
 * one head in practice) plus a set lookup per distinct length at each hit.
 * The result is the same as the literal alternation's: every occurrence of
 * every value is found, leftmost first, the longest value at a position wins,
 * and the scan resumes after a match.
 */

/** How many leading characters group values; every value is at least this long or grouped by itself. */
const HEAD_CHARS = 16;

interface Group {
  readonly head: string;
  /** Distinct value lengths of this head, longest first. */
  readonly lengths: number[];
  readonly values: Map<string, string>;
}

export function issuedMatcher(
  pairs: Iterable<readonly [string, string]>,
  minBytes: number,
): Matcher | undefined {
  const labels = literalLabels(pairs, minBytes);
  if (labels.size === 0) return undefined;
  const groups = new Map<string, { lengths: Set<number>; values: Map<string, string> }>();
  let longest = 0;
  for (const [value, label] of labels) {
    const head = value.slice(0, HEAD_CHARS);
    let g = groups.get(head);
    if (!g) {
      g = { lengths: new Set(), values: new Map() };
      groups.set(head, g);
    }
    g.lengths.add(value.length);
    g.values.set(value, label);
    if (value.length > longest) longest = value.length;
  }
  const list: Group[] = [...groups].map(([head, g]) => ({
    head,
    lengths: [...g.lengths].sort((a, b) => b - a),
    values: g.values,
  }));

  /** The longest value starting at `pos` in `s`, or undefined. */
  const at = (g: Group, s: string, pos: number): string | undefined => {
    for (const len of g.lengths) {
      if (pos + len > s.length) continue;
      const cand = s.slice(pos, pos + len);
      if (g.values.has(cand)) return cand;
    }
    return undefined;
  };

  const spans = (s: string): [number, number][] => {
    // Every occurrence of a value starts with its head, so the head hits are the only candidates.
    const starts: { pos: number; g: Group }[] = [];
    for (const g of list)
      for (let i = s.indexOf(g.head); i >= 0; i = s.indexOf(g.head, i + 1))
        starts.push({ pos: i, g });
    if (list.length > 1) starts.sort((x, y) => x.pos - y.pos);
    const found: [number, number][] = [];
    let free = 0;
    for (let k = 0; k < starts.length; k++) {
      const pos = starts[k]!.pos;
      if (pos < free) continue;
      let best: string | undefined;
      // Several heads may start at one position: the longest value there wins.
      for (let j = k; j < starts.length && starts[j]!.pos === pos; j++) {
        const hit = at(starts[j]!.g, s, pos);
        if (hit !== undefined && (best === undefined || hit.length > best.length)) best = hit;
      }
      if (best === undefined) continue;
      found.push([pos, pos + best.length]);
      free = pos + best.length;
    }
    return found;
  };

  const replaceWith = (s: string, keepLines: boolean): string => {
    const sp = spans(s);
    if (sp.length === 0) return s;
    let out = '';
    let last = 0;
    for (const [a, b] of sp) {
      const value = s.slice(a, b);
      out += s.slice(last, a) + (labels.get(value) ?? '[SECRET]');
      if (keepLines) out += '\n'.repeat(value.split('\n').length - 1);
      last = b;
    }
    return out + s.slice(last);
  };

  return {
    size: labels.size,
    labels: [...new Set(labels.values())],
    longest,
    spans,
    label: (value) => labels.get(value),
    test: (s) => {
      for (const g of list) {
        let i = s.indexOf(g.head);
        while (i >= 0) {
          if (at(g, s, i) !== undefined) return true;
          i = s.indexOf(g.head, i + 1);
        }
      }
      return false;
    },
    replace: (s) => replaceWith(s, false),
    replaceKeepingLines: (s) => replaceWith(s, true),
  };
}
