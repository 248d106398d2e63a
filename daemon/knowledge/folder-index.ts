import { rmSync } from 'node:fs';
import type { Clock, ClockTimer } from '../../lib/clock.js';
import { markBuilt, openIndexDb, type IndexDb } from './index-db.js';
import { IndexRows, type IndexMasking, type Read } from './index-rows.js';
import { filesAt, readSafe, walkFilesAsync, type FileStat } from './walk.js';
import { DirWatcher } from './dir-watcher.js';

interface FolderIndexOptions {
  readonly root: string;
  readonly dbPath: string;
  readonly clock: Clock;
  /** The result gate: every document is masked before it is chunked and indexed. */
  readonly gate: IndexMasking;
  /** Full rescan period, the safety net under the watcher (default 60 s; 10 s without a watcher). */
  readonly rescanMs?: number;
  /** Files indexed per event-loop turn while building (default 256). */
  readonly batch?: number;
  readonly diag?: (event: string, detail: Record<string, unknown>) => void;
}

/** How soon changes a watcher reported are applied without waiting for a search. */
const FLUSH_DELAY_MS = 150;
/** Without a working watcher, a search rescans the folder when the last scan is older than this. */
const POLL_STALE_MS = 1_000;
/** Files read at once while indexing (each holds a descriptor until read). */
const READ_CONCURRENCY = 16;

/**
 * A full-text index of one folder, kept current while open: per-folder
 * watchers mark changed paths, which are applied shortly after (and always
 * before a search); a periodic rescan by mtime and size catches whatever a
 * watcher misses; without a watcher every search rescans when the last scan
 * is over a second old. Nothing is read through a symbolic link.
 */
export class FolderIndex {
  state: 'building' | 'ready' | 'closed' = 'building';
  /** The first build threw (e.g. the disk is full); the owner closes this index and opens a new one to retry. */
  failed = false;
  readonly progress = { done: 0, total: 0 };
  readonly db: IndexDb;
  private readonly root: string;
  /** The files and passages tables. */
  private readonly rows: IndexRows;
  private readonly dirty = new Set<string>();
  private watcher: DirWatcher | null = null;
  private flushTimer: ClockTimer | null = null;
  private rescanTimer: ClockTimer | null = null;
  private lastScan = 0;
  private scanning = false;
  private readonly ready: Promise<void>;
  /**
   * Index changes run one at a time: a change reads its files (off the event
   * loop) and then applies them in one transaction, so a later read of a
   * file is never overwritten by an earlier one that finished after it.
   */
  private lock: Promise<unknown> = Promise.resolve();
  /** The gate's fingerprint the passages were masked under. */
  private readonly maskedWith: string;

  constructor(private readonly opts: FolderIndexOptions) {
    this.root = opts.root;
    this.maskedWith = opts.gate.fingerprint();
    const { db, fresh } = openIndexDb(opts.dbPath, this.maskedWith);
    this.db = db;
    this.rows = new IndexRows(db, opts.root, opts.gate);
    this.startWatcher();
    if (fresh) {
      this.ready = this.rescanInBatches().then(() => {
        if (this.state === 'closed') return;
        markBuilt(db);
        this.state = 'ready';
      });
    } else {
      // An index from an earlier run answers at once; the rescan brings it up to date behind it.
      this.state = 'ready';
      this.ready = Promise.resolve();
      this.rescanInBatches().catch((err: unknown) =>
        opts.diag?.('index_rescan_failed', { root: this.root, error: String(err) }),
      );
    }
    this.ready.catch((err: unknown) => {
      this.failed = true;
      opts.diag?.('index_build_failed', { root: this.root, error: String(err) });
    });
    this.scheduleRescan();
  }

  /**
   * The set of masked values changed since this index was built (a reload added a credential):
   * its passages may hold a value now masked, so the owner destroys it and builds a new one.
   */
  get stale(): boolean {
    return this.opts.gate.fingerprint() !== this.maskedWith;
  }

  /** Resolves true once the first build is complete, false if that takes longer than ms. */
  async whenReady(ms: number): Promise<boolean> {
    if (this.state === 'ready') return true;
    let timer: ClockTimer | undefined;
    const timeout = new Promise<boolean>(
      (r) => (timer = this.opts.clock.setTimeout(() => r(false), ms)),
    );
    const done = await Promise.race([
      this.ready.then(
        () => this.state === 'ready',
        () => false,
      ),
      timeout,
    ]);
    if (timer) this.opts.clock.clearTimeout(timer);
    return done;
  }

  /** Applies every pending change now (before a search answers). */
  async refresh(): Promise<void> {
    if (this.state === 'closed') return;
    if (!this.watcher && this.opts.clock.now() - this.lastScan >= POLL_STALE_MS) {
      this.dirty.clear();
      const startedAt = this.opts.clock.now();
      const found = await walkFilesAsync(this.root);
      await this.exclusive(() => this.applyScan(found, startedAt));
      return;
    }
    await this.flushDirty();
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Closes and deletes the database: the next index for this folder starts from nothing. */
  destroy(): void {
    this.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(this.opts.dbPath + suffix, { force: true });
  }

  private isClosed(): boolean {
    return this.state === 'closed';
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.watcher?.close();
    this.watcher = null;
    if (this.flushTimer) this.opts.clock.clearTimeout(this.flushTimer);
    if (this.rescanTimer) this.opts.clock.clearTimeout(this.rescanTimer);
    this.db.close();
  }

  private startWatcher(): void {
    const w = new DirWatcher(
      this.root,
      (rel) => {
        this.dirty.add(rel);
        if (!this.flushTimer) {
          this.flushTimer = this.opts.clock.setTimeout(() => {
            this.flushTimer = null;
            this.flushDirty().catch((err: unknown) =>
              this.opts.diag?.('index_flush_failed', { root: this.root, error: String(err) }),
            );
          }, FLUSH_DELAY_MS);
        }
      },
      (err) => {
        this.opts.diag?.('index_watch_failed', { root: this.root, error: String(err) });
        if (this.watcher === w) this.watcher = null;
      },
    );
    this.watcher = w;
    void w.start();
  }

  private scheduleRescan(): void {
    const every = this.opts.rescanMs ?? (this.watcher ? 60_000 : 10_000);
    const t = this.opts.clock.setTimeout(() => {
      if (this.state === 'closed') return;
      if (this.state !== 'ready' || this.scanning) return this.scheduleRescan();
      this.rescanInBatches().then(
        () => this.scheduleRescan(),
        (err: unknown) => {
          this.opts.diag?.('index_rescan_failed', { root: this.root, error: String(err) });
          this.scheduleRescan();
        },
      );
    }, every);
    t.unref?.();
    this.rescanTimer = t;
  }

  private flushDirty(): Promise<void> {
    if (this.dirty.size === 0 || this.state === 'closed') return Promise.resolve();
    const paths = [...this.dirty];
    this.dirty.clear();
    if (paths.includes('') || paths.length > 2_000) {
      // Too much to apply path by path (or the watcher lost track): rescan the folder off the event loop.
      if (!this.scanning)
        void this.rescanInBatches().catch((err: unknown) =>
          this.opts.diag?.('index_rescan_failed', { root: this.root, error: String(err) }),
        );
      return Promise.resolve();
    }
    return this.exclusive(async () => {
      const { files, gone } = await filesAt(this.root, paths);
      const reads = await this.readChanged(files);
      if (this.isClosed()) return;
      this.db.transaction(() => {
        for (const rel of gone) this.rows.removeGone(rel);
        this.rows.applyReads(reads);
      })();
    });
  }

  /** Reads the files whose size or mtime differ from their rows, a few at a time, off the event loop. */
  private async readChanged(files: FileStat[]): Promise<Read[]> {
    const todo = files.filter((st) => !this.rows.isUnchanged(st));
    const out: Read[] = [];
    for (let i = 0; i < todo.length && !this.isClosed(); i += READ_CONCURRENCY) {
      const slice = todo.slice(i, i + READ_CONCURRENCY);
      out.push(
        ...(await Promise.all(
          slice.map(async (st) => ({ st, text: await readSafe(this.root, st.path, st) })),
        )),
      );
    }
    return out;
  }

  private async applyScan(found: FileStat[], startedAt: number): Promise<void> {
    const { changed, gone } = this.rows.diff(found);
    const reads = await this.readChanged(changed);
    if (this.isClosed()) return;
    this.lastScan = startedAt;
    this.db.transaction(() => {
      for (const r of gone) this.rows.removeIfGone(r);
      this.rows.applyReads(reads);
    })();
  }

  /**
   * A full rescan that never blocks the event loop for long: the walk runs
   * on the thread pool and changes are applied in batches between turns
   * (first build, start-up, the periodic safety net).
   */
  private async rescanInBatches(): Promise<void> {
    this.scanning = true;
    try {
      const startedAt = this.opts.clock.now();
      const found = await walkFilesAsync(this.root);
      if (this.isClosed()) return;
      this.lastScan = startedAt;
      const { changed, gone } = this.rows.diff(found);
      this.progress.total = changed.length;
      this.progress.done = 0;
      const batch = this.opts.batch ?? 256;
      for (let i = 0; i < gone.length; i += batch) {
        if (this.isClosed()) return;
        // A row may have been re-created by a watcher flush meanwhile: drop it only if its file is still gone.
        await this.exclusive(async () => {
          if (this.isClosed()) return;
          this.db.transaction(() => {
            for (const r of gone.slice(i, i + batch)) this.rows.removeIfGone(r);
          })();
        });
        await new Promise((r) => setImmediate(r));
      }
      for (let i = 0; i < changed.length; i += batch) {
        if (this.isClosed()) return;
        const slice = changed.slice(i, i + batch);
        await this.exclusive(async () => {
          const reads = await this.readChanged(slice);
          if (this.isClosed()) return;
          // Each row is re-read: a watcher flush may have indexed the file meanwhile.
          this.db.transaction(() => this.rows.applyReads(reads))();
        });
        this.progress.done += slice.length;
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      this.scanning = false;
    }
  }
}
