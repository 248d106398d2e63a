import type { Db } from './db.js';
import type { Caller } from './server-api.js';
import { ExecError } from '../errors.js';
import { canonicalJson, sha256Base64url } from '../exec/canonical-json.js';

import { IDEMPOTENCY_MAX_RECORDS, IDEMPOTENCY_WINDOW_MS, type IdempotencyLimits } from './idempotency.js';

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
/** @deprecated transitional: the synchronous record for stores not yet on the async Sql interface. */
export class LegacyIdempotency {
  private readonly find;
  private readonly insert;
  private readonly drop;
  private readonly expire;
  private readonly pruneOldest;
  private readonly countAll;
  private readonly windowMs: number;
  private readonly maxRecords: number;
  /** Rows in the table, counted once and then kept by this, the only writer (the daemon holds the store exclusively). */
  private kept: number | undefined;

  constructor(private readonly db: Db, private readonly now: () => number, limits: IdempotencyLimits = {}) {
    this.windowMs = limits.windowMs ?? IDEMPOTENCY_WINDOW_MS;
    this.maxRecords = limits.maxRecords ?? IDEMPOTENCY_MAX_RECORDS;
    this.find = db.prepare<[string, string, string, string], { body_hash: string; result: string; created_at: number }>(
      'SELECT body_hash, result, created_at FROM idempotency WHERE server_id = ? AND agent_id = ? AND action = ? AND key = ?',
    );
    this.insert = db.prepare(
      'INSERT INTO idempotency (server_id, agent_id, action, key, body_hash, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.drop = db.prepare('DELETE FROM idempotency WHERE server_id = ? AND agent_id = ? AND action = ? AND key = ?');
    this.expire = db.prepare<[number]>('DELETE FROM idempotency WHERE created_at <= ?');
    this.pruneOldest = db.prepare<[number]>(
      'DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency ORDER BY created_at ASC, rowid ASC LIMIT ?)',
    );
    this.countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM idempotency');
  }

  run<I extends { idempotencyKey?: string; requestId?: string }, T>(caller: Caller, action: string, input: I, apply: () => T): T {
    const key = input.idempotencyKey ?? input.requestId;
    if (key === undefined) return this.db.transaction(apply).immediate();
    // Which field named the key is not part of the body: either replays the other.
    const { idempotencyKey: _k, requestId: _r, ...body } = input;
    const hash = sha256Base64url(canonicalJson(body));
    return this.db
      .transaction((): T => {
        const now = this.now();
        const prior = this.find.get(caller.serverId, caller.agentId, action, key);
        if (prior && prior.created_at > now - this.windowMs) {
          if (prior.body_hash !== hash) {
            throw new ExecError('idempotency_conflict', `idempotency selector "${key}" was already used with a different body`, {
              hint: 'Use a new idempotencyKey for a different change, or resend the original body to get its result.',
            });
          }
          return JSON.parse(prior.result) as T;
        }
        if (prior) this.drop.run(caller.serverId, caller.agentId, action, key);
        const result = apply();
        this.insert.run(caller.serverId, caller.agentId, action, key, hash, JSON.stringify(result), now);
        this.bound(now, prior ? 0 : 1);
        return result;
      })
      .immediate();
  }

  /** Drops expired records, then the oldest beyond the maximum; inside the writing transaction. */
  private bound(now: number, added: number): void {
    let kept = this.kept === undefined ? this.countAll.get()!.n : this.kept + added;
    kept -= this.expire.run(now - this.windowMs).changes;
    if (kept > this.maxRecords) kept -= this.pruneOldest.run(kept - this.maxRecords).changes;
    this.kept = kept;
  }

  /** Records currently kept (for tests and status). */
  count(): number {
    return this.countAll.get()!.n;
  }
}
