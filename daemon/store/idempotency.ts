import type { Sql, SqlStore, SqlTx } from './sql.js';
import type { Caller } from './server-api.js';
import type { Migration } from './migrations.js';
import { ExecError } from '../errors/exec-error.js';
import { canonicalJson, sha256Base64url } from './canonical-json.js';

/** How long a record replays its first result. After that the key is free again. */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Records kept at most; beyond this the oldest are dropped first (each holds a complete result). */
const IDEMPOTENCY_MAX_RECORDS = 10_000;

export interface IdempotencyLimits {
  readonly windowMs?: number;
  readonly maxRecords?: number;
}

/** The age index that expiry and pruning walk. */
export const IDEMPOTENCY_AGE_MIGRATION: Migration = {
  id: '006_idempotency_age',
  up(db) {
    db.exec('CREATE INDEX idempotency_by_age ON idempotency (created_at)');
  },
};

/**
 * Runs a mutation in one IMMEDIATE transaction together with its idempotency
 * record. A repeated key (scoped to server + agent + action) replays the
 * stored first result; the same key with another body is a conflict. Because
 * the lookup, the effect and the record commit together, concurrent
 * duplicates produce exactly one effect. Failed mutations leave no record.
 * The key is `idempotencyKey` or `requestId` (the route has made sure they
 * agree). Records older than the window are treated as absent and removed;
 * at most `maxRecords` are kept, the oldest going first.
 */
export class Idempotency {
  private readonly windowMs: number;
  private readonly maxRecords: number;
  /** Rows in the table as this daemon last knew them (SQLite: counted once, then kept in step by every write). */
  private kept: number | undefined;
  /** PostgreSQL: writes since the count-based bound last ran (other daemons write too, so the count is re-read). */
  private sinceBound = 0;

  constructor(
    private readonly sql: SqlStore,
    private readonly now: () => number,
    limits: IdempotencyLimits = {},
  ) {
    this.windowMs = limits.windowMs ?? IDEMPOTENCY_WINDOW_MS;
    this.maxRecords = limits.maxRecords ?? IDEMPOTENCY_MAX_RECORDS;
  }

  async run<I extends { idempotencyKey?: string; requestId?: string }, T>(
    caller: Caller,
    action: string,
    input: I,
    apply: (q: SqlTx) => Promise<T>,
  ): Promise<T> {
    const key = input.idempotencyKey ?? input.requestId;
    if (key === undefined) return this.sql.tx(apply);
    // Which field named the key is not part of the body: either replays the other.
    const { idempotencyKey: _k, requestId: _r, ...body } = input;
    const hash = sha256Base64url(canonicalJson(body));
    const scope = [caller.serverId, caller.agentId, action, key] as const;
    let added = 0;
    const result = await this.sql.tx(
      async (q): Promise<T> => {
        added = 0;
        const now = this.now();
        const prior = await q.get<{ body_hash: string; result: string; created_at: number }>(
          'SELECT body_hash, result, created_at FROM idempotency WHERE server_id = ? AND agent_id = ? AND action = ? AND key = ?',
          scope,
        );
        if (prior && prior.created_at > now - this.windowMs) {
          if (prior.body_hash !== hash) {
            throw new ExecError(
              'idempotency_conflict',
              `idempotency selector "${key}" was already used with a different body`,
              {
                hint: 'Use a new idempotencyKey for a different change, or resend the original body to get its result.',
              },
            );
          }
          return JSON.parse(prior.result) as T;
        }
        if (prior)
          await q.run(
            'DELETE FROM idempotency WHERE server_id = ? AND agent_id = ? AND action = ? AND key = ?',
            scope,
          );
        const out = await apply(q);
        await q.run(
          'INSERT INTO idempotency (server_id, agent_id, action, key, body_hash, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [...scope, hash, JSON.stringify(out), now],
        );
        added = prior ? 0 : 1;
        // SQLite has one writer at a time, so the bound runs inside the write and the count is exact.
        if (q.dialect === 'sqlite') await this.boundExact(q, now, added);
        return out;
      },
      { lockKey: `idempotency\u0000${scope.join('\u0000')}` },
    );
    if (this.sql.dialect === 'postgres' && added) await this.boundShared();
    return result;
  }

  /** Drops expired records, then the oldest beyond the maximum; inside the writing transaction. */
  private async boundExact(q: Sql, now: number, added: number): Promise<void> {
    let kept = this.kept === undefined ? await this.countOn(q) : this.kept + added;
    kept -= (await q.run('DELETE FROM idempotency WHERE created_at <= ?', [now - this.windowMs]))
      .changes;
    if (kept > this.maxRecords) kept -= (await this.pruneOldest(q, kept - this.maxRecords)).changes;
    this.kept = kept;
  }

  /**
   * The shared database's bound, after the write commits and outside it: a
   * count inside a serializable write would make every two concurrent writes
   * conflict. Expiry runs on every write (an index range); the count-based
   * bound every PRUNE_EVERY writes of this daemon, so the table may exceed its
   * maximum by that many per daemon between checks.
   */
  private async boundShared(): Promise<void> {
    await this.sql.run('DELETE FROM idempotency WHERE created_at <= ?', [
      this.now() - this.windowMs,
    ]);
    if (++this.sinceBound < PRUNE_EVERY && this.kept !== undefined) return;
    this.sinceBound = 0;
    const kept = await this.countOn(this.sql);
    this.kept = kept;
    if (kept > this.maxRecords) await this.pruneOldest(this.sql, kept - this.maxRecords);
  }

  private pruneOldest(q: Sql, n: number) {
    return q.run(
      `DELETE FROM idempotency WHERE (server_id, agent_id, action, key) IN (
         SELECT server_id, agent_id, action, key FROM idempotency ORDER BY created_at ASC, server_id, agent_id, action, key LIMIT ?)`,
      [n],
    );
  }

  private async countOn(q: Sql): Promise<number> {
    return (await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM idempotency'))!.n;
  }

  /** Records currently kept (for tests and status). */
  async count(): Promise<number> {
    return this.countOn(this.sql);
  }
}

/** How many writes a daemon on a shared database makes between count-based bounds of the idempotency table. */
const PRUNE_EVERY = 64;
