import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { checkDeclaration, lineColumn, type Declaration } from '../catalog/tool-declaration.js';

/**
 * Declaration files on disk: reading, parsing and checking them, and finding
 * a command's program. Shared by the daemon (which loads them) and
 * `agentteam tools check` (which must not import daemon code).
 */

/** A declaration file larger than this is refused unread. */
const MAX_DECLARATION_BYTES = 256 * 1024;
/** At most this many declaration files are read. */
export const MAX_DECLARATIONS = 256;

export interface DeclarationIssue {
  readonly file: string;
  /** JSON pointer of the problem inside the file, when it parsed. */
  readonly pointer?: string;
  /** Line and column, for a file that is not valid JSON. */
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** One line per problem: `file#/pointer: message` or `file:line:column: message`. */
export function formatIssue(p: DeclarationIssue): string {
  const where =
    p.pointer !== undefined
      ? `#${p.pointer}`
      : p.line !== undefined
        ? `:${p.line}:${p.column ?? 1}`
        : '';
  return `${p.file}${where}: ${p.message}`;
}

/** The program of argv[0]: a path (relative to `baseDir`) or a name searched on PATH; null when not an executable file. */
export function resolveProgram(
  program: string,
  baseDir: string,
  path = process.env.PATH ?? '',
): string | null {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : resolve(baseDir, program)]
    : path
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, program));
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) {
        accessSync(c, constants.X_OK);
        return c;
      }
    } catch {
      // next candidate
    }
  }
  return null;
}

/** Parses and checks every *.json file of `dir` (sorted by name); problems are appended. */
export function readDeclarationFiles(
  dir: string,
  problems: DeclarationIssue[],
): { file: string; decl: Declaration }[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push({
        file: dir,
        message: `cannot read the tools directory: ${(err as Error).message}`,
      });
    return [];
  }
  if (names.length > MAX_DECLARATIONS) {
    problems.push({
      file: dir,
      message: `${names.length} declaration files; only the first ${MAX_DECLARATIONS} are read`,
    });
    names = names.slice(0, MAX_DECLARATIONS);
  }
  const out: { file: string; decl: Declaration }[] = [];
  for (const n of names) {
    const r = checkDeclarationFile(join(dir, n));
    if (r.ok) out.push({ file: r.file, decl: r.decl });
    else problems.push(...r.problems);
  }
  return out;
}

/** Reads, parses and checks one declaration file (no registry, no program lookup). */
export function checkDeclarationFile(
  file: string,
): { ok: true; file: string; decl: Declaration } | { ok: false; problems: DeclarationIssue[] } {
  let text: string;
  try {
    const read = readDeclarationText(file);
    if (typeof read !== 'string') return { ok: false, problems: [{ file, message: read.refused }] };
    text = read;
  } catch (err) {
    return { ok: false, problems: [{ file, message: `cannot read: ${(err as Error).message}` }] };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    const where = at ? lineColumn(text, Number(at[1])) : undefined;
    return {
      ok: false,
      problems: [{ file, ...(where ?? {}), message: `not valid JSON: ${(err as Error).message}` }],
    };
  }
  const checked = checkDeclaration(doc);
  if (!checked.ok)
    return {
      ok: false,
      problems: checked.problems.map((p) => ({ file, pointer: p.pointer, message: p.message })),
    };
  return { ok: true, file, decl: checked.decl };
}

/**
 * How a declaration is opened. O_NOFOLLOW: a link (to /dev/zero, to a file
 * elsewhere) is refused, not followed. O_NONBLOCK: a named pipe swapped in
 * after the lstat opens at once instead of waiting for a writer (which froze
 * the daemon's event loop); the fstat then refuses it.
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** What an entry is, for a refusal that names it. */
function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link (links in the tools folder are never followed)';
  if (st.isFIFO()) return 'not a regular file (a named pipe)';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'not a regular file (a device)';
  if (st.isSocket()) return 'not a regular file (a socket)';
  if (st.isDirectory()) return 'not a regular file (a directory)';
  return 'not a regular file';
}

/**
 * The text of a declaration that is a regular file of at most
 * MAX_DECLARATION_BYTES, or why it is refused. The entry is looked at with
 * lstat before anything is opened (a device is never opened at all); what
 * is then opened must be that very file (same device and inode), and at most
 * one byte past the limit is ever read, so a file growing meanwhile is
 * refused too, never read to its end.
 */
function readDeclarationText(file: string): string | { refused: string } {
  const seen = lstatSync(file);
  if (!seen.isFile()) return { refused: kindOf(seen) };
  if (seen.size > MAX_DECLARATION_BYTES)
    return { refused: `larger than ${MAX_DECLARATION_BYTES} bytes` };
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP')
      return { refused: kindOf(lstatSync(file)) };
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { refused: kindOf(st) };
    if (st.dev !== seen.dev || st.ino !== seen.ino)
      return { refused: 'replaced while it was being read; it is read again at the next change' };
    const buf = Buffer.allocUnsafe(MAX_DECLARATION_BYTES + 1);
    let off = 0;
    for (let n = 1; n > 0 && off < buf.length; off += n)
      n = readSync(fd, buf, off, buf.length - off, off);
    if (off > MAX_DECLARATION_BYTES)
      return { refused: `larger than ${MAX_DECLARATION_BYTES} bytes` };
    return buf.subarray(0, off).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
