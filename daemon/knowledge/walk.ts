import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, readdirSync, type Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LIMITS, jsonBytes } from '../../catalog/limits.js';

/** Files the indexes read: Markdown and plain text. */
const INDEXED = /\.(md|markdown|mdx|txt|text)$/i;
/** Larger files are skipped (and counted), so one huge file cannot stall indexing. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Deepest folder nesting walked. */
const MAX_DEPTH = 32;

export interface FileStat {
  readonly path: string;
  readonly mtimeMs: number;
  readonly size: number;
}

export function isIndexedName(rel: string): boolean {
  return INDEXED.test(rel) && fitsLocator(rel) && !rel.split('/').some((part) => part.startsWith('.'));
}

/** A path too long to be returned as a locator (memory_search path, kb docId) is not indexed. */
function fitsLocator(rel: string): boolean {
  return jsonBytes(rel) <= LIMITS.docPath.bytes && [...rel].length <= LIMITS.docPath.chars;
}

/**
 * Every indexed file under root, relative with "/" separators. Symbolic links
 * are never followed (neither files nor folders), hidden names are skipped,
 * so nothing outside root can be reached through the index.
 */
export function walkFiles(root: string, onSkip?: (rel: string, why: string) => void): FileStat[] {
  const out: FileStat[] = [];
  const visit = (dir: string, rel: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const abs = join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) visit(abs, childRel, depth + 1);
      } else if (e.isFile() && INDEXED.test(e.name)) {
        if (!fitsLocator(childRel)) {
          onSkip?.(childRel, 'path_too_long');
          continue;
        }
        let st: Stats;
        try {
          st = lstatSync(abs);
        } catch {
          continue;
        }
        if (!st.isFile()) continue;
        if (st.size > MAX_FILE_BYTES) {
          onSkip?.(childRel, 'too_large');
          continue;
        }
        out.push({ path: childRel, mtimeMs: st.mtimeMs, size: st.size });
      }
    }
  };
  visit(root, '', 0);
  return out;
}

/**
 * walkFiles without blocking the event loop: directory reads and stats run on
 * libuv's thread pool, one folder at a time (a 10,000-file folder costs
 * ~300 ms of CPU to walk, which must not stall the daemon's requests).
 */
export async function walkFilesAsync(root: string): Promise<FileStat[]> {
  const out: FileStat[] = [];
  const pending: { dir: string; rel: string; depth: number }[] = [{ dir: root, rel: '', depth: 0 }];
  while (pending.length > 0) {
    const { dir, rel, depth } = pending.pop()!;
    let entries;
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
            (st) => (st.isFile() && st.size <= MAX_FILE_BYTES ? { path: childRel, mtimeMs: st.mtimeMs, size: st.size } : null),
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
    if (last) return st.size > MAX_FILE_BYTES ? null : { path: rel, mtimeMs: st.mtimeMs, size: st.size };
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

/** Reads root/rel as UTF-8 without following a link at the last step (O_NOFOLLOW); null if it cannot. */
export function readSafe(root: string, rel: string): string | null {
  if (!safeStat(root, rel)) return null;
  let fd: number;
  try {
    fd = openSync(join(root, ...rel.split('/')), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
