import { constants, type Dirent, lstatSync, type Stats } from 'node:fs';
import { lstat, open, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS, jsonBytes } from '../../catalog/limits.js';

/** Files the indexes read: Markdown and plain text. */
const INDEXED = /\.(md|markdown|mdx|txt|text)$/i;
/** Larger files are skipped (and counted), so one huge file cannot stall indexing. */
const MAX_FILE_BYTES = 1024 * 1024;
/** Deepest folder nesting walked. */
const MAX_DEPTH = 32;

export interface FileStat {
  readonly path: string;
  readonly mtimeMs: number;
  readonly size: number;
  /** Device and inode the walk saw: what is opened later must be this very file. */
  readonly dev: number;
  readonly ino: number;
}

function fileStat(path: string, st: Stats): FileStat {
  return { path, mtimeMs: st.mtimeMs, size: st.size, dev: st.dev, ino: st.ino };
}

/**
 * How every file under memory/ and kb/ is opened. O_NOFOLLOW: a link put at
 * the last step is refused. O_NONBLOCK: a named pipe (or device) swapped in
 * under a file's name opens at once instead of waiting for a writer; the
 * fstat after the open then refuses it, since it is not a regular file.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export function isIndexedName(rel: string): boolean {
  return (
    INDEXED.test(rel) && fitsLocator(rel) && !rel.split('/').some((part) => part.startsWith('.'))
  );
}

/** A path too long to be returned as a locator (memory_search path, kb docId) is not indexed. */
function fitsLocator(rel: string): boolean {
  return jsonBytes(rel) <= LIMITS.docPath.bytes && [...rel].length <= LIMITS.docPath.chars;
}

/**
 * Every indexed file under root, relative with "/" separators. Symbolic links
 * are never followed (neither files nor folders), hidden names are skipped,
 * so nothing outside root can be reached through the index. Directory reads
 * and stats run on libuv's thread pool, one folder at a time (a 10,000-file
 * folder costs ~300 ms of CPU to walk, which must not stall the daemon's
 * requests).
 */
export async function walkFilesAsync(root: string): Promise<FileStat[]> {
  const out: FileStat[] = [];
  const pending: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: '', depth: 0 }];
  while (pending.length > 0) {
    const { dir, rel, depth } = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const files: Promise<FileStat | null>[] = [];
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) pending.push({ dir: abs, rel: childRel, depth: depth + 1 });
      } else if (e.isFile() && INDEXED.test(e.name) && fitsLocator(childRel)) {
        files.push(
          lstat(abs).then(
            (st) => (st.isFile() && st.size <= MAX_FILE_BYTES ? fileStat(childRel, st) : null),
            () => null,
          ),
        );
      }
    }
    for (const f of await Promise.all(files)) if (f) out.push(f);
  }
  return out;
}

/**
 * The stat of root/rel when every component is a real folder or file (no
 * symbolic link anywhere on the way), else null.
 */
export function safeStat(root: string, rel: string): FileStat | null {
  const parts = rel.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.startsWith('.'))) return null;
  let abs = root;
  for (let i = 0; i < parts.length; i++) {
    abs = join(abs, parts[i]!);
    let st: Stats;
    try {
      st = lstatSync(abs);
    } catch {
      return null;
    }
    const last = i === parts.length - 1;
    if (last ? !st.isFile() : !st.isDirectory()) return null;
    if (last) return st.size > MAX_FILE_BYTES ? null : fileStat(rel, st);
  }
  return null;
}

/** Whether root/rel is a real folder reached without links. */
export function isSafeDir(root: string, rel: string): boolean {
  let abs = root;
  for (const p of rel.split('/')) {
    if (p === '' || p === '.' || p === '..' || p.startsWith('.')) return false;
    abs = join(abs, p);
    try {
      if (!lstatSync(abs).isDirectory()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * What the paths a watcher named are now: an indexed file, a folder that
 * appeared (every file under it), or something that went away (`gone`).
 */
export async function filesAt(
  root: string,
  paths: readonly string[],
): Promise<{ files: FileStat[]; gone: string[] }> {
  const files: FileStat[] = [];
  const gone: string[] = [];
  for (const rel of paths) {
    const st = isIndexedName(rel) ? safeStat(root, rel) : null;
    if (st) files.push(st);
    else if (isSafeDir(root, rel))
      for (const f of await walkFilesAsync(`${root}/${rel}`))
        files.push({ ...f, path: `${rel}/${f.path}` });
    else gone.push(rel);
  }
  return { files, gone };
}

/**
 * Reads root/rel as UTF-8, or null if it cannot be read safely. Never blocks
 * the event loop: the open, stat and reads run on the thread pool, and the
 * open cannot wait (OPEN_FLAGS). What was opened must be a regular file of at
 * most MAX_FILE_BYTES with the device and inode `seen` names (what the walk
 * or a fresh link-free lstat of every step saw), so a file swapped for a
 * pipe, a link or another file between the check and the open is refused.
 */
export async function readSafe(
  root: string,
  rel: string,
  seen: Pick<FileStat, 'dev' | 'ino'> | null = safeStat(root, rel),
): Promise<string | null> {
  if (!seen) return null;
  let fh: FileHandle;
  try {
    fh = await open(join(root, ...rel.split('/')), OPEN_FLAGS);
  } catch {
    return null;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > MAX_FILE_BYTES || st.dev !== seen.dev || st.ino !== seen.ino)
      return null;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < buf.length) {
      const { bytesRead } = await fh.read(buf, off, buf.length - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    return buf.subarray(0, off).toString('utf8');
  } catch {
    return null;
  } finally {
    await fh.close().catch(() => undefined);
  }
}
