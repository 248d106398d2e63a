/**
 * Edit distance with adjacent transpositions (optimal string alignment), so
 * the common typo "tsak" is one edit from "task". Names are short; the plain
 * O(n·m) table is fine.
 */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i]![j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The candidates nearest to `name` (all ties), if they are near enough to be a plausible typo. */
function closest(name: string, candidates: readonly string[]): string[] {
  const scored = candidates.map((c) => ({ c, d: editDistance(name.toLowerCase(), c) }));
  const best = Math.min(...scored.map((s) => s.d));
  if (best > Math.max(1, Math.floor(name.length / 2))) return [];
  return scored.filter((s) => s.d === best).map((s) => s.c);
}

/** `unknown domain "tsk"; did you mean "task"? (domains: task, project, ...)` */
export function unknownNameMessage(
  kind: string,
  name: string,
  candidates: readonly string[],
): string {
  const near = closest(name, candidates).map((c) => `"${c}"`);
  const guess = near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '';
  return `unknown ${kind} "${name}"${guess} (${kind}s: ${candidates.join(', ')})`;
}
