/**
 * Count retention that an agent cannot turn against the trail. Trimming the
 * oldest rows of the whole table let one agent push out every other agent's
 * rows, and its own earlier, telling ones, with cheap calls (160 `task
 * list`s at `maxRows: 100`). So the rows kept are shared out fairly, twice:
 *
 * 1. among agents (server and agent id): each keeps its newest rows up to an
 *    equal share, and an agent under the share keeps all of its rows; the
 *    share is the largest that fits `maxRows`, so only agents above it lose
 *    rows, the one with the most first;
 * 2. within an agent's share, the same among its kinds of call: the tool for
 *    a call that succeeded, the error code for one that failed (a caller
 *    chooses the name of a refused call, so names of refused calls cannot
 *    make kinds of their own, while the error codes are a closed set).
 *
 * Rows go oldest first within a kind. A flood of one kind of call therefore
 * only ever removes older rows of that same agent and kind; a single call of
 * another kind stays until the agent has made calls of more kinds than its
 * share holds rows. Where a share cannot give every kind one more row, the
 * kinds with fewer rows get it first (the rare call is the telling one).
 *
 * A leaf with no imports: the embedded store's writer thread loads it.
 */

/** How many rows one (server, agent, kind) holds; `g` is the kind. */
export interface RetentionGroup {
  readonly s: string;
  readonly a: string;
  readonly g: string;
  readonly n: number;
}

const KIND = `CASE WHEN outcome = 'ok' THEN tool ELSE outcome END`;

/** Row counts per agent and kind. */
export const RETENTION_COUNTS = `SELECT server_id AS s, agent_id AS a, ${KIND} AS g, COUNT(*) AS n FROM audit GROUP BY server_id, agent_id, ${KIND}`;
/** Kinds per statement (4 parameters each, far within both stores' limits). */
const KINDS_PER_STATEMENT = 1000;
/** Rows per DELETE: each is a short write by primary key, so the store's one write lock is never held long. */
const SEQS_PER_DELETE = 500;

/**
 * The seqs of every row past the newest `k` of each kind listed, found by one
 * numbering of the table by kind (a window function: one scan and sort, and
 * a read, which takes no write lock) rather than a scan per kind (2,000 kinds
 * took 12 s that way at load 16 on 2 cores).
 */
const doomedSql = (
  n: number,
) => `WITH keep(s, a, g, k) AS (VALUES ${Array.from({ length: n }, () => '(?, ?, ?, CAST(? AS INTEGER))').join(', ')})
  SELECT r.seq AS seq FROM (
    SELECT seq, server_id, agent_id, ${KIND} AS g, ROW_NUMBER() OVER (PARTITION BY server_id, agent_id, ${KIND} ORDER BY seq DESC) AS rn FROM audit
  ) r JOIN keep ON r.server_id = keep.s AND r.agent_id = keep.a AND r.g = keep.g WHERE r.rn > keep.k`;

/** The statements (SQL and parameters) that find the rows a plan removes. */
export function retentionSelects(
  plan: readonly { group: RetentionGroup; keep: number }[],
): { sql: string; args: (string | number)[] }[] {
  const out: { sql: string; args: (string | number)[] }[] = [];
  for (let i = 0; i < plan.length; i += KINDS_PER_STATEMENT) {
    const part = plan.slice(i, i + KINDS_PER_STATEMENT);
    out.push({
      sql: doomedSql(part.length),
      args: part.flatMap(({ group: g, keep }) => [g.s, g.a, g.g, keep]),
    });
  }
  return out;
}

/** The DELETEs of those rows, a few hundred by primary key at a time. */
export function retentionDeletes(
  seqs: readonly (number | string)[],
): { sql: string; args: (number | string)[] }[] {
  const out: { sql: string; args: (number | string)[] }[] = [];
  for (let i = 0; i < seqs.length; i += SEQS_PER_DELETE) {
    const part = seqs.slice(i, i + SEQS_PER_DELETE);
    out.push({
      sql: `DELETE FROM audit WHERE seq IN (${part.map(() => '?').join(', ')})`,
      args: part,
    });
  }
  return out;
}

/**
 * Splits `budget` among `counts` (water filling): each gets min(count, level)
 * for the highest level that fits, and what is left over goes one by one to
 * those still above it, smallest count first (ties by order given).
 */
function share(counts: readonly number[], budget: number): number[] {
  const order = counts.map((_n, i) => i).sort((x, y) => counts[x]! - counts[y]! || x - y);
  const out = new Array<number>(counts.length).fill(0);
  let left = budget;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    // An equal part of what is left for this one and every larger one after it.
    const part = Math.floor(left / (order.length - k));
    out[i] = Math.min(counts[i]!, part);
    left -= out[i]!;
  }
  // Rounding down can leave a few rows: to the smallest counts still above their part.
  for (const i of order) {
    if (left === 0) break;
    if (out[i]! < counts[i]!) {
      out[i]!++;
      left--;
    }
  }
  return out;
}

/** The kinds that must lose rows, each with how many of its newest rows stay. */
export function retentionPlan(
  groups: readonly RetentionGroup[],
  maxRows: number,
): { group: RetentionGroup; keep: number }[] {
  // Counts arrive as strings from PostgreSQL; a fixed order makes ties fall the same way on both stores.
  const rows = groups
    .map((g) => ({ ...g, n: Number(g.n) }))
    .sort((x, y) =>
      x.s < y.s
        ? -1
        : x.s > y.s
          ? 1
          : x.a < y.a
            ? -1
            : x.a > y.a
              ? 1
              : x.g < y.g
                ? -1
                : x.g > y.g
                  ? 1
                  : 0,
    );
  if (rows.reduce((sum, g) => sum + g.n, 0) <= maxRows) return [];
  const byAgent = new Map<string, (typeof rows)[number][]>();
  for (const g of rows) {
    const key = JSON.stringify([g.s, g.a]);
    byAgent.set(key, [...(byAgent.get(key) ?? []), g]);
  }
  const agents = [...byAgent.values()];
  const agentShares = share(
    agents.map((kinds) => kinds.reduce((sum, g) => sum + g.n, 0)),
    maxRows,
  );
  const plan: { group: RetentionGroup; keep: number }[] = [];
  agents.forEach((kinds, i) => {
    const kindShares = share(
      kinds.map((g) => g.n),
      agentShares[i]!,
    );
    kinds.forEach((g, j) => {
      if (kindShares[j]! < g.n) plan.push({ group: g, keep: kindShares[j]! });
    });
  });
  return plan;
}
