import type { Db } from './db.js';
import type { Caller } from './server-api.js';
import { ExecError } from '../errors.js';
import { canonicalJson, sha256Base64url } from '../exec/canonical-json.js';

/**
 * Runs a mutation in one IMMEDIATE transaction together with its idempotency
 * record. A repeated key (scoped to server + agent + action) replays the
 * stored first result; the same key with another body is a conflict. Because
 * the lookup, the effect and the record commit together, concurrent
 * duplicates produce exactly one effect. Failed mutations leave no record.
 */
export class Idempotency {
  private readonly find;
  private readonly insert;

  constructor(private readonly db: Db, private readonly now: () => number) {
    this.find = db.prepare<[string, string, string, string], { body_hash: string; result: string }>(
      'SELECT body_hash, result FROM idempotency WHERE server_id = ? AND agent_id = ? AND action = ? AND key = ?',
    );
    this.insert = db.prepare(
      'INSERT INTO idempotency (server_id, agent_id, action, key, body_hash, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
  }

  run<I extends { idempotencyKey?: string }, T>(caller: Caller, action: string, input: I, apply: () => T): T {
    const key = input.idempotencyKey;
    if (key === undefined) return this.db.transaction(apply).immediate();
    const { idempotencyKey: _omit, ...body } = input;
    const hash = sha256Base64url(canonicalJson(body));
    return this.db
      .transaction((): T => {
        const prior = this.find.get(caller.serverId, caller.agentId, action, key);
        if (prior) {
          if (prior.body_hash !== hash) {
            throw new ExecError('idempotency_conflict', `idempotencyKey "${key}" was already used with a different body`, {
              hint: 'Use a new idempotencyKey for a different change, or resend the original body to get its result.',
            });
          }
          return JSON.parse(prior.result) as T;
        }
        const result = apply();
        this.insert.run(caller.serverId, caller.agentId, action, key, hash, JSON.stringify(result), this.now());
        return result;
      })
      .immediate();
  }
}
