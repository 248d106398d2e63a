import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { ExecError } from '../errors/exec-error.js';
import {
  attemptUnder,
  CommitHooks,
  NestedStatementError,
  type RunResult,
  type SqlStore,
  type SqlTx,
  type SqlValue,
  type TxOptions,
} from './sql.js';
import { inSpan } from '../telemetry/tracing.js';
import { TxScope } from './tx-scope.js';
import { WalHeaderWatch } from './wal-header.js';

const SQLITE_SPAN = { 'db.system.name': 'sqlite' };

/** How long SQLite's own (synchronous) busy handler may spin before BEGIN gives up and waits asynchronously. */
const BUSY_SPIN_MS = 20;
/** How long a transaction waits in all for another connection's write lock. */
const WRITE_LOCK_WAIT_MS = 5_000;

/**
 * The embedded store's driver: better-sqlite3 under the async Sql interface.
 * Every statement is synchronous underneath, so a transaction only has to
 * keep other callers off the connection while its callback awaits: one
 * in-process lock, held from BEGIN IMMEDIATE to COMMIT. Statements outside a
 * transaction wait for the lock and then run at once (no await between the
 * check and the statement, so nothing slips into somebody else's
 * transaction). A statement that reaches the store directly from inside its
 * own transaction would wait for itself forever; it is refused instead.
 */
export class SqliteSql implements SqlStore {
  readonly dialect = 'sqlite' as const;
  readonly describe;
  private readonly statements = new Map<string, Statement>();
  private readonly inside = new TxScope();
  private readonly totalChanges;
  private readonly dataVersion;
  /** The WAL-index header of the file, read without a lock; null for an in-memory database. */
  private readonly walHeader: WalHeaderWatch | null;
  private locked = false;
  private unlocked: Promise<void> = Promise.resolve();
  private savepoints = 0;
  /** Writes this connection made: statements that change rows, and committed transactions. */
  private writes = 0;
  /** The last WAL-header check: when it began (performance.now()), what it saw, the writes count then. */
  private readonly lastCheck = { at: Number.NEGATIVE_INFINITY, generation: 0, writes: -1 };
  private readonly counts = { transactions: 0, retries: 0, busy: 0 };

  constructor(
    readonly db: Db,
    location: string,
  ) {
    this.describe = { kind: 'sqlite' as const, location };
    db.pragma(`busy_timeout = ${BUSY_SPIN_MS}`);
    this.totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck(true);
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck(true);
    this.walHeader = db.memory ? null : WalHeaderWatch.open(db.name);
  }

  async all<R>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
    while (this.locked) await this.waitUnlocked();
    const st = this.statement(sql);
    if (!st.readonly) this.writes++;
    return st.all(...params) as R[];
  }

  async get<R>(sql: string, params: readonly SqlValue[] = []): Promise<R | undefined> {
    while (this.locked) await this.waitUnlocked();
    const st = this.statement(sql);
    if (!st.readonly) this.writes++;
    return st.get(...params) as R | undefined;
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    while (this.locked) await this.waitUnlocked();
    this.writes++;
    return { changes: this.statement(sql).run(...params).changes };
  }

  tx<T>(fn: (q: SqlTx) => Promise<T>, opts: TxOptions = {}): Promise<T> {
    return inSpan('store.tx', SQLITE_SPAN, () => this.runTx(fn, opts));
  }

  private async runTx<T>(fn: (q: SqlTx) => Promise<T>, opts: TxOptions): Promise<T> {
    while (this.locked) await this.waitUnlocked();
    this.locked = true;
    let release!: () => void;
    this.unlocked = new Promise<void>((r) => (release = r));
    // The connection is ours until the lock is released: the setting covers this commit only.
    if (opts.relaxedDurability) this.db.pragma('synchronous = NORMAL');
    try {
      await this.begin();
      const hooks = new CommitHooks();
      const q = this.handle(hooks);
      let result: T;
      try {
        result = await this.inside.run(() => fn(q));
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw err;
      }
      this.db.exec('COMMIT');
      this.writes++;
      this.counts.transactions++;
      hooks.run();
      return result;
    } finally {
      if (opts.relaxedDurability) this.db.pragma('synchronous = FULL');
      this.locked = false;
      release();
    }
  }

  /**
   * BEGIN IMMEDIATE, waiting for another connection's write lock (another
   * process, `store backup`, sqlite3) without blocking the event loop:
   * SQLite's own busy handler sleeps synchronously, so it is kept short
   * (BUSY_SPIN_MS) and the rest of the wait is asynchronous, up to
   * WRITE_LOCK_WAIT_MS, after which the caller gets `busy`.
   */
  private async begin(): Promise<void> {
    const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
    for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
      try {
        this.db.exec('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
        if (Date.now() >= deadline) {
          this.counts.busy++;
          throw new ExecError('busy', 'the store is locked by another process', {
            hint: 'Retry shortly.',
          });
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  stats() {
    return { ...this.counts };
  }

  ownWritesOnly(): boolean {
    return !this.locked;
  }

  /**
   * Any commit, by any connection, moves the WAL-index header (wal-header.ts:
   * one read, no lock). Without a `-shm` file, this connection's own row
   * count plus `PRAGMA data_version` for the others' commits. Null while a
   * transaction is open on the connection, ours or one begun by hand: its
   * uncommitted rows are visible to it and in no header.
   *
   * A caller whose request was read at `since` is given the last check
   * again when that check began after `since` and this connection wrote
   * nothing since: every commit the caller could have known of came before
   * its request, so before that check; one after it is concurrent with the
   * call, which may be ordered before it. The Exec lane starts the calls a
   * poll of the event loop read together one after another, so the first
   * one's check serves the rest.
   */
  changeCounter(since?: number): number | null {
    if (this.locked || this.db.inTransaction) return null;
    if (this.walHeader === null)
      return this.totalChanges.get()! + this.dataVersion.get()! * 2 ** 26;
    const last = this.lastCheck;
    if (since !== undefined && last.at > since && last.writes === this.writes)
      return last.generation;
    last.at = performance.now();
    last.writes = this.writes;
    last.generation = this.walHeader.generationNow();
    return last.generation;
  }

  async close(): Promise<void> {
    while (this.locked) await this.waitUnlocked();
    if (this.db.open) this.db.close();
    this.walHeader?.close();
  }

  /**
   * Waits until no transaction holds the connection; refuses a caller that is
   * itself inside one. Callers check `locked` again when it returns (`while`,
   * not `if`): every waiter wakes on the same release, and the first to resume
   * may already have taken the lock for its own transaction.
   */
  private async waitUnlocked(): Promise<void> {
    if (this.inside.inside()) throw new NestedStatementError();
    while (this.locked) await this.unlocked;
  }

  private statement(sql: string): Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /** Statements of the open transaction: straight to the connection, no lock check. */
  private handle(hooks: CommitHooks): SqlTx {
    const self = this;
    const q: SqlTx = {
      dialect: 'sqlite',
      async all<R>(sql: string, params: readonly SqlValue[] = []) {
        return self.statement(sql).all(...params) as R[];
      },
      async get<R>(sql: string, params: readonly SqlValue[] = []) {
        return self.statement(sql).get(...params) as R | undefined;
      },
      async run(sql: string, params: readonly SqlValue[] = []) {
        return { changes: self.statement(sql).run(...params).changes };
      },
      async savepoint<T>(fn: (inner: SqlTx) => Promise<T>): Promise<T> {
        const name = `sp${++self.savepoints}`;
        self.db.exec(`SAVEPOINT ${name}`);
        const mark = hooks.mark();
        try {
          const r = await fn(q);
          self.db.exec(`RELEASE ${name}`);
          return r;
        } catch (err) {
          hooks.undoTo(mark);
          self.db.exec(`ROLLBACK TO ${name}`);
          self.db.exec(`RELEASE ${name}`);
          throw err;
        }
      },
      // One writer at a time: nothing dooms a SQLite transaction but a failed COMMIT.
      attempt: (fn) => attemptUnder(q, fn, () => false),
      afterCommit: (fn) => hooks.add(fn),
    };
    return q;
  }
}
