import type { Statement } from 'better-sqlite3';
import { chunkText, titleOf } from './chunk.js';
import { CHUNKS_PER_FILE, type IndexDb } from './index-db.js';
import { safeStat, type FileStat } from './walk.js';
import type { ResultGate } from '../results/gate.js';

/**
 * The rows of one folder index: a file's row and its passages, written
 * together. Callers hold the index's lock and run writes in a transaction;
 * every document is masked by the gate before it is chunked.
 */

/** What an index needs of the result gate: documents masked before they are chunked, and when that masking changed. */
export type IndexMasking = Pick<ResultGate, 'document' | 'fingerprint'>;

type Row = { id: number; path: string; mtime_ms: number; size: number };

/** A file as read from disk (null: unreadable or not text), to be applied to its row. */
export type Read = { st: FileStat; text: string | null };

/**
 * A file's passage rowids. Bound as BigInt: SQLite binds a JS number as REAL,
 * and FTS5 (3.53) then ignores a rowid constraint instead of applying it.
 */
function chunkRange(id: number): [bigint, bigint] {
  return [BigInt(id * CHUNKS_PER_FILE), BigInt((id + 1) * CHUNKS_PER_FILE)];
}

export class IndexRows {
  private readonly byPath: Statement;
  private readonly insertFile: Statement;
  private readonly updateFile: Statement;
  private readonly deleteFile: Statement;
  private readonly deleteChunks: Statement;
  private readonly insertChunk: Statement;
  private readonly allFiles: Statement;

  constructor(
    private readonly db: IndexDb,
    private readonly root: string,
    private readonly gate: IndexMasking,
  ) {
    this.byPath = db.prepare('SELECT id, path, mtime_ms, size FROM files WHERE path = ?');
    this.insertFile = db.prepare(
      'INSERT INTO files (path, mtime_ms, size, title) VALUES (?, ?, ?, ?)',
    );
    this.updateFile = db.prepare('UPDATE files SET mtime_ms = ?, size = ?, title = ? WHERE id = ?');
    this.deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
    this.deleteChunks = db.prepare('DELETE FROM chunks WHERE rowid >= ? AND rowid < ?');
    this.insertChunk = db.prepare(
      'INSERT INTO chunks (rowid, body, file_id, line_start, line_end) VALUES (?, ?, ?, ?, ?)',
    );
    this.allFiles = db.prepare('SELECT id, path, mtime_ms, size FROM files');
  }

  /** A path that is no longer a file or folder: its row, and the rows of files that were under it. */
  removeGone(rel: string): void {
    this.removePath(rel);
    const under = this.db
      .prepare('SELECT id, path, mtime_ms, size FROM files WHERE substr(path, 1, ?) = ?')
      .all(rel.length + 1, `${rel}/`) as Row[];
    for (const r of under) if (!safeStat(this.root, r.path)) this.remove(r.id);
  }

  isUnchanged(st: FileStat): boolean {
    return same(this.byPath.get(st.path) as Row | undefined, st);
  }

  /** Inside a transaction: what was read, each file re-checked against its row. */
  applyReads(reads: Read[]): void {
    for (const { st, text } of reads) {
      const row = this.byPath.get(st.path) as Row | undefined;
      if (same(row, st)) continue;
      this.indexFile(st, row, text);
    }
  }

  private indexFile(st: FileStat, row: Row | undefined, raw: string | null): void {
    if (raw === null) {
      if (row) this.remove(row.id);
      return;
    }
    // Mask first: titles, passage boundaries and the indexed words all come from masked text, so
    // neither a snippet nor a (prefix) query can reveal a secret.
    const text = this.gate.document(raw);
    let id: number;
    const title = titleOf(text, st.path);
    if (row) {
      id = row.id;
      this.deleteChunks.run(...chunkRange(id));
      this.updateFile.run(st.mtimeMs, st.size, title, id);
    } else {
      id = Number(this.insertFile.run(st.path, st.mtimeMs, st.size, title).lastInsertRowid);
    }
    const chunks = chunkText(text).slice(0, CHUNKS_PER_FILE);
    chunks.forEach((c, n) => {
      this.insertChunk.run(BigInt(id * CHUNKS_PER_FILE + n), c.text, id, c.lineStart, c.lineEnd);
    });
  }

  private removePath(rel: string): void {
    const row = this.byPath.get(rel) as Row | undefined;
    if (row) this.remove(row.id);
  }

  private remove(id: number): void {
    this.deleteChunks.run(...chunkRange(id));
    this.deleteFile.run(id);
  }

  /** What a scan found against what is indexed: the files to (re)index and the rows to drop. */
  diff(found: FileStat[]): { changed: FileStat[]; gone: Row[] } {
    const rows = new Map<string, Row>();
    for (const r of this.allFiles.all() as Row[]) rows.set(r.path, r);
    const seen = new Set<string>();
    const changed: FileStat[] = [];
    for (const f of found) {
      seen.add(f.path);
      if (!same(rows.get(f.path), f)) changed.push(f);
    }
    const gone = [...rows.values()].filter((r) => !seen.has(r.path));
    return { changed, gone };
  }

  /** Drops a row whose file is (still) gone: a watcher flush may have brought it back meanwhile. */
  removeIfGone(r: Row): void {
    if (!safeStat(this.root, r.path)) this.remove(r.id);
  }
}

/** The row was made from this very file: same modification time and size. */
const same = (row: Row | undefined, st: FileStat): row is Row =>
  row !== undefined && row.mtime_ms === st.mtimeMs && row.size === st.size;
