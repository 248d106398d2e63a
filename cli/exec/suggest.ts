/** Levenshtein distance; the names compared are short, so the plain O(n·m) table is fine. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** The candidates nearest to `name` (all ties), nearest first. */
export function closest(name: string, candidates: readonly string[]): string[] {
  const scored = candidates.map((c) => ({ c, d: editDistance(name.toLowerCase(), c) }));
  const best = Math.min(...scored.map((s) => s.d));
  return scored.filter((s) => s.d === best).map((s) => s.c);
}

/** `unknown domain "tsk"; did you mean "task"? (domains: task, project, ...)` */
export function unknownNameMessage(kind: string, name: string, candidates: readonly string[]): string {
  const near = closest(name, candidates).map((c) => `"${c}"`);
  const guess = near.length > 0 ? `; did you mean ${near.join(' or ')}?` : '';
  return `unknown ${kind} "${name}"${guess} (${kind}s: ${candidates.join(', ')})`;
}
