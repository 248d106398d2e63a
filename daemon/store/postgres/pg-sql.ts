import pg from 'pg';
import {
  attemptUnder,
  CommitHooks,
  NestedStatementError,
  type RunResult,
  type SqlStore,
  type SqlTx,
  type SqlValue,
  type TxOptions,
} from '../sql.js';
import { decodeText, encodeText } from './text.js';
import { numberPlaceholders } from './placeholders.js';
import type { StoreUrl } from '../../../lib/store-url.js';
import { inSpan } from '../../telemetry/tracing.js';
import { ExecError } from '../../errors/exec-error.js';
import { TxScope } from '../tx-scope.js';
import { leavingError, retryable } from './pg-errors.js';

const PG_SPAN = { 'db.system.name': 'postgresql' };

/**
 * Connections one daemon keeps to a shared database. Requests hold a
 * connection only for one statement, or one transaction (a few ms), so ten
 * serve the daemon's whole request concurrency; a team of N daemons needs
 * 10 × N of the server's `max_connections` (100 by default).
 */
const POOL_MAX = 10;
/** How long a statement may run before PostgreSQL cancels it: the request deadline. */
const STATEMENT_TIMEOUT_MS = 30_000;
/** A transaction left open this long (a hung daemon) is ended by the server, releasing its locks. */
const IDLE_IN_TX_TIMEOUT_MS = 60_000;
/** Serialization failures are retried this many times before the caller gets `busy`. */
const MAX_TX_ATTEMPTS = 30;

/** int8 (counts, timestamps in ms, revisions) and numeric come back as JS numbers; every value the store keeps fits. */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/**
 * The shared team store's driver: node-postgres with a bounded pool. Every
 * transaction is SERIALIZABLE and re-run from the start after a serialization
 * failure or deadlock, which gives the same outcomes as SQLite's one writer at
 * a time without each store reasoning about row locks. `lockKey` takes a
 * session advisory lock before BEGIN, so transactions on one key (one
 * idempotency record) queue behind each other and see each other's commits
 * instead of failing and retrying; with `lockOnly` the key is all the
 * ordering it needs, and it runs READ COMMITTED. Statements are prepared once per
 * connection (named by their text's number). Strings are escaped for NUL
 * (postgres/text.ts).
 */
export class PgSql implements SqlStore {
  readonly dialect = 'postgres' as const;
  readonly describe;
  private readonly pool: pg.Pool;
  private readonly texts = new Map<string, { name: string; text: string }>();
  private readonly inside = new TxScope();
  private closed = false;
  private readonly counts = { transactions: 0, retries: 0, busy: 0 };

  constructor(
    readonly url: StoreUrl,
    private readonly log: (message: string) => void = () => {},
  ) {
    this.describe = { kind: 'postgres' as const, location: url.location };
    this.pool = new pg.Pool({
      connectionString: url.connectionString,
      max: POOL_MAX,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idle_in_transaction_session_timeout: IDLE_IN_TX_TIMEOUT_MS,
      application_name: 'agentteam',
      types: TYPES,
    });
    // An idle connection the server closed (restart, failover) must not take the daemon down.
    this.pool.on('error', (err) => this.log(`store connection lost: ${url.mask(err.message)}`));
  }

  async all<R>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
    this.refuseNested();
    return this.query<R>(this.pool, sql, params);
  }

  async get<R>(sql: string, params: readonly SqlValue[] = []): Promise<R | undefined> {
    return (await this.all<R>(sql, params))[0];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    this.refuseNested();
    return this.exec(this.pool, sql, params);
  }

  tx<T>(fn: (q: SqlTx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    return inSpan('store.tx', PG_SPAN, () => this.runTx(fn, opts));
  }

  private async runTx<T>(fn: (q: SqlTx) => Promise<T>, opts: TxOptions): Promise<T> {
    this.refuseNested();
    for (let attempt = 1; ; attempt++) {
      const client = await this.connect();
      let broken = false;
      try {
        if (opts.lockKey !== undefined) await this.lockOn(client, 'pg_advisory_lock', opts.lockKey);
        try {
          await client.query(
            opts.lockKey !== undefined && opts.lockOnly
              ? 'BEGIN ISOLATION LEVEL READ COMMITTED'
              : 'BEGIN ISOLATION LEVEL SERIALIZABLE',
          );
          if (opts.relaxedDurability) await client.query('SET LOCAL synchronous_commit = off');
          const hooks = new CommitHooks();
          const result = await this.inside.run(() => fn(this.handle(client, hooks)));
          await client.query('COMMIT');
          this.counts.transactions++;
          hooks.run();
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch(() => (broken = true));
          if (retryable(err) && attempt < MAX_TX_ATTEMPTS) {
            this.counts.retries++;
            await sleep(Math.min(50, 2 * attempt) * Math.random());
            continue;
          }
          if (retryable(err)) {
            this.counts.busy++;
            throw new ExecError(
              'busy',
              'the team store stayed too contended to apply this change',
              { hint: 'Retry shortly.' },
            );
          }
          throw this.translate(err);
        } finally {
          if (opts.lockKey !== undefined && !broken) {
            await this.lockOn(client, 'pg_advisory_unlock', opts.lockKey).catch(
              () => (broken = true),
            );
          }
        }
      } finally {
        // A connection whose state is unknown (a failed ROLLBACK or unlock) is closed, never reused.
        client.release(broken ? true : undefined);
      }
    }
  }

  stats() {
    return { ...this.counts };
  }

  changeCounter(): number | null {
    return null;
  }

  ownWritesOnly(): boolean {
    return false;
  }

  /** One pooled connection for work outside the Sql interface (migrations). */
  async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      return await fn(client);
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** A client for one transaction; a failure to get one names the store, never its password. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw this.translate(err);
    }
  }

  private async lockOn(
    client: pg.PoolClient,
    fn: 'pg_advisory_lock' | 'pg_advisory_unlock',
    key: string,
  ): Promise<void> {
    await client.query(`SELECT ${fn}(hashtextextended($1, 0))`, [encodeText(key)]);
  }

  private refuseNested(): void {
    if (this.inside.inside()) throw new NestedStatementError();
  }

  private prepared(sql: string): { name: string; text: string } {
    let p = this.texts.get(sql);
    if (!p) {
      p = { name: `agentteam_${this.texts.size}`, text: numberPlaceholders(sql) };
      this.texts.set(sql, p);
    }
    return p;
  }

  /** One statement, prepared once per connection; outside a transaction its errors leave translated. */
  private async send(
    on: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly SqlValue[],
  ): Promise<pg.QueryResult> {
    try {
      return await on.query({ ...this.prepared(sql), values: params.map(bind) });
    } catch (err) {
      throw this.inside.inside() ? err : this.translate(err);
    }
  }

  private async query<R>(
    on: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly SqlValue[],
  ): Promise<R[]> {
    const rows = (await this.send(on, sql, params)).rows as Record<string, unknown>[];
    for (const row of rows) {
      for (const k in row) {
        const v = row[k];
        if (typeof v === 'string') row[k] = decodeText(v);
      }
    }
    return rows as R[];
  }

  private async exec(
    on: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly SqlValue[],
  ): Promise<RunResult> {
    return { changes: (await this.send(on, sql, params)).rowCount ?? 0 };
  }

  private handle(client: pg.PoolClient, hooks: CommitHooks): SqlTx {
    let savepoints = 0;
    const q: SqlTx = {
      dialect: 'postgres',
      all: <R>(sql: string, params: readonly SqlValue[] = []) => this.query<R>(client, sql, params),
      get: async <R>(sql: string, params: readonly SqlValue[] = []) =>
        (await this.query<R>(client, sql, params))[0],
      run: (sql: string, params: readonly SqlValue[] = []) => this.exec(client, sql, params),
      savepoint: async <T>(fn: (inner: SqlTx) => Promise<T>): Promise<T> => {
        const name = `sp${++savepoints}`;
        await client.query(`SAVEPOINT ${name}`);
        const mark = hooks.mark();
        try {
          const r = await fn(q);
          await client.query(`RELEASE SAVEPOINT ${name}`);
          return r;
        } catch (err) {
          hooks.undoTo(mark);
          // A serialization failure dooms the whole transaction: let it reach tx() and be retried.
          if (retryable(err)) throw err;
          await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          await client.query(`RELEASE SAVEPOINT ${name}`);
          throw err;
        }
      },
      attempt: (fn) => attemptUnder(q, fn, retryable),
      afterCommit: (fn) => hooks.add(fn),
    };
    return q;
  }

  private translate(err: unknown): unknown {
    return leavingError(err, this.url);
  }
}

function bind(v: SqlValue): unknown {
  return typeof v === 'string' ? encodeText(v) : v;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
