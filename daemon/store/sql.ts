/**
 * The store's one way to reach its database, whichever it is: the embedded
 * SQLite file or a team's PostgreSQL server. Entity stores write portable SQL
 * (`?` placeholders, `INSERT … RETURNING`, `ON CONFLICT`, no rowid, no
 * dialect functions) and get the same semantics from both drivers:
 *
 * - outside a transaction each statement commits on its own;
 * - `tx` runs its callback as one serializable transaction. SQLite serializes
 *   writers itself (BEGIN IMMEDIATE); PostgreSQL runs SERIALIZABLE and the
 *   driver re-runs the whole callback after a serialization failure or a
 *   deadlock, so the callback must have no effect outside `q` (wake timers,
 *   emit events and the like after `tx` resolves);
 * - integers come back as JS numbers and strings byte for byte (NUL included).
 */

/** What a statement may be given. Booleans are stored as 0/1 by the caller. */
export type SqlValue = string | number | bigint | null;

export interface RunResult {
  /** Rows inserted, updated or deleted by the statement. */
  readonly changes: number;
}

/** Statements on one connection (the store's, or a transaction's). */
export interface Sql {
  readonly dialect: 'sqlite' | 'postgres';
  all<R = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<R[]>;
  get<R = Record<string, unknown>>(
    sql: string,
    params?: readonly SqlValue[],
  ): Promise<R | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<RunResult>;
}

/** A transaction's handle: statements inside it, and savepoints. */
export interface SqlTx extends Sql {
  /** Runs `fn` under a savepoint: if it throws, only its own changes are undone, and the error is rethrown. */
  savepoint<T>(fn: (q: SqlTx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` under a savepoint and reports its failure instead of throwing
   * it, with its own changes undone, so the transaction goes on (a delivery
   * records a failed send; a message is stored though its trigger failed).
   * A failure that dooms the whole transaction (PostgreSQL: serialization
   * failure or deadlock, which the driver answers by running it again) is
   * thrown all the same.
   */
  attempt<T>(fn: (q: SqlTx) => Promise<T>): Promise<Attempt<T>>;
  /**
   * Runs `fn` once the transaction has committed (never when it rolls back,
   * runs again, or the savepoint it was added under is undone): how a write
   * tells the rest of the daemon about itself (the event stream) without
   * announcing what never happened.
   */
  afterCommit(fn: () => void): void;
}

/** The afterCommit list of one transaction attempt; a savepoint marks it and cuts back to its mark when undone. */
export class CommitHooks {
  private readonly fns: (() => void)[] = [];
  add(fn: () => void): void {
    this.fns.push(fn);
  }
  mark(): number {
    return this.fns.length;
  }
  undoTo(mark: number): void {
    this.fns.length = mark;
  }
  /** After COMMIT: each runs; one that throws does not keep the others from running. */
  run(): void {
    for (const fn of this.fns.splice(0)) {
      try {
        fn();
      } catch {
        // a listener's failure is its own; the transaction has committed
      }
    }
  }
}

type Attempt<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/** `attempt` over a driver's savepoint, given how the driver recognises a doomed transaction. */
export async function attemptUnder<T>(
  q: SqlTx,
  fn: (q: SqlTx) => Promise<T>,
  dooms: (err: unknown) => boolean,
): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await q.savepoint(fn) };
  } catch (error) {
    if (dooms(error)) throw error;
    return { ok: false, error };
  }
}

export interface TxOptions {
  /**
   * Serialize with every other transaction (on any daemon) that names the same
   * key, before the transaction's snapshot is taken. Used by idempotency
   * records so concurrent duplicates wait and replay instead of retrying.
   */
  readonly lockKey?: string;
  /**
   * With `lockKey`: the key alone orders everything the transaction depends
   * on (each row it reads or writes belongs to the key, and statements on
   * those rows outside the key guard themselves in their WHERE). PostgreSQL
   * then runs it READ COMMITTED, without the predicate locks of SERIALIZABLE,
   * which on a small or busy table make transactions on other keys fail and
   * run again. SQLite serializes every writer anyway.
   */
  readonly lockOnly?: boolean;
  /**
   * Commit without waiting for the disk (SQLite: `synchronous=NORMAL` for
   * this commit, so the WAL is not fsynced; PostgreSQL: `synchronous_commit
   * = off`). The transaction stays atomic and survives a crash of the daemon;
   * a crash of the machine (or of the PostgreSQL server) may lose it. For
   * records that may be lost in a crash anyway (the audit trail's batches),
   * never for data a response has acknowledged.
   */
  readonly relaxedDurability?: boolean;
}

interface StoreStats {
  /** Transactions committed since start. */
  readonly transactions: number;
  /** PostgreSQL: transactions run again after a serialization failure or deadlock. */
  readonly retries: number;
  /** Transactions that gave up (`busy`): SQLite waited 5 s for another process's lock, PostgreSQL ran out of retries. */
  readonly busy: number;
}

export interface SqlStore extends Sql {
  /** What `daemon status` shows: the kind and where (never a password). */
  readonly describe: { readonly kind: 'sqlite' | 'postgres'; readonly location: string };
  /** Counters for `daemon status`: transactions committed, and how often one had to wait or run again. */
  stats(): StoreStats;
  tx<T>(fn: (q: SqlTx) => Promise<T>, opts?: TxOptions): Promise<T>;
  /**
   * A number that moves whenever anything is committed to the database, when
   * the driver can tell cheaply and synchronously (SQLite); null when it
   * cannot (another daemon may write a shared PostgreSQL at any time), in
   * which case nothing read may be cached. `since`: the caller's request
   * was read at that instant (performance.now()); a check begun after it,
   * with no write of this connection since, may be answered again.
   */
  changeCounter(since?: number): number | null;
  /**
   * Whether a cache kept by this daemon's own writes may be used now: true
   * on SQLite while none of the store's transactions is open (no syscall,
   * unlike `changeCounter`, which asks SQLite about other connections'
   * commits), false on a shared PostgreSQL.
   */
  ownWritesOnly(): boolean;
  close(): Promise<void>;
}

/** A statement run on the store while one of its own transactions is open, from inside that transaction. */
export class NestedStatementError extends Error {
  override name = 'NestedStatementError';
  constructor() {
    super(
      'a statement reached the store directly from inside a transaction; pass the transaction handle (q) down instead',
    );
  }
}
