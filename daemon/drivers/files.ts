import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** Writes a private file (0600, parent 0700) by rename, so a runtime never reads half a config. */
export function writePrivateFile(path: string, content: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(tmp, content, { mode, flag: 'wx' }); // a fresh name, never an existing file or link
  renameSync(tmp, path);
}

/** Single-quotes a path for a POSIX shell command line. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
