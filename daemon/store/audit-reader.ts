import { Worker } from 'node:worker_threads';
import type { SqlValue } from './sql.js';

export type ReadRequest = (
  | { op: 'all'; sql: string; params: readonly SqlValue[] }
  | { op: 'close' }
) & { id: number };
export type ReadReply = { ok: true; rows: unknown[] } | { ok: false; code: string };

const WORKER = new URL('./audit-read-worker.js', import.meta.url);

/** A read the thread refused (its SQLite code; the statement and its values stay out of the message). */
class AuditReadError extends Error {
  override name = 'AuditReadError';
  constructor(readonly code: string) {
    super(`an audit read failed (${code})`);
  }
}

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, (r: ReadReply) => void>;
}

/**
 * Operator reads of the embedded store's audit trail, run on a thread of
 * their own (audit-read-worker.ts) so the request thread never executes an
 * audit query: a summary that takes a second over a busy hour costs the
 * daemon's agents nothing but the core it runs on. Started on the first
 * read (a daemon nobody reads the trail of never starts it), kept from
 * holding the process open while idle, started again on the next read if it
 * died, ended by `close`.
 */
export class AuditReader {
  private thread: Thread | null = null;
  private next = 1;
  private closed = false;

  constructor(private readonly path: string) {}

  async all<R>(sql: string, params: readonly SqlValue[] = []): Promise<R[]> {
    if (this.closed) throw new AuditReadError('closed');
    const r = await this.post(this.started(), { op: 'all', sql, params });
    if (!r.ok) throw new AuditReadError(r.code);
    return r.rows as R[];
  }

  async get<R>(sql: string, params: readonly SqlValue[] = []): Promise<R | undefined> {
    return (await this.all<R>(sql, params))[0];
  }

  /** Closes the thread's connection and ends it; reads already handed over are answered first (one queue). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const t = this.thread;
    if (!t) return;
    const exited = new Promise<void>((r) => t.worker.once('exit', () => r()));
    await this.post(t, { op: 'close' }).catch(() => undefined);
    t.worker.ref();
    await t.worker.terminate();
    await exited;
  }

  private post(
    t: Thread,
    m: { op: 'all'; sql: string; params: readonly SqlValue[] } | { op: 'close' },
  ): Promise<ReadReply> {
    const id = this.next++;
    return new Promise<ReadReply>((resolve) => {
      t.pending.set(id, resolve);
      t.worker.ref();
      t.worker.postMessage({ ...m, id } as ReadRequest);
    });
  }

  private started(): Thread {
    if (this.thread) return this.thread;
    const worker = new Worker(WORKER, { workerData: { path: this.path } });
    const t: Thread = { worker, pending: new Map() };
    worker.unref();
    worker.on('message', (m: ReadReply & { id: number }) => {
      const answer = t.pending.get(m.id);
      t.pending.delete(m.id);
      if (t.pending.size === 0) worker.unref();
      answer?.(m);
    });
    const gone = (code: string) => {
      if (this.thread === t) this.thread = null;
      const waiting = [...t.pending.values()];
      t.pending.clear();
      for (const answer of waiting) answer({ ok: false, code });
    };
    worker.on('error', (err) => gone(err.name));
    worker.on('exit', (code) => gone(`exit_${code}`));
    this.thread = t;
    return t;
  }
}
