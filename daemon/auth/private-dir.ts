import { mkdir, chmod, lstat, rm } from 'node:fs/promises';
import { HomeLinkError } from '../lifecycle/no-follow.js';

/** Removes a credential directory; injectable so tests can make cleanup fail. A link is unlinked, never followed. */
export type DirRemover = (dir: string) => Promise<void>;

export const removeDir: DirRemover = (dir) => rm(dir, { recursive: true, force: true });

/**
 * Creates one private directory (0700 regardless of umask) in the runtime
 * root, which must be a real directory: a link there would put credentials
 * wherever it points. mkdir without `recursive` fails on any existing entry,
 * link or not, so the new directory is always our own.
 */
export async function createPrivateDir(runtimeDir: string, dir: string): Promise<void> {
  await mkdir(runtimeDir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  if ((await lstat(runtimeDir)).isSymbolicLink()) throw new HomeLinkError(runtimeDir);
  await chmod(runtimeDir, 0o700);
  await mkdir(dir, { mode: 0o700 });
  await chmod(dir, 0o700);
}
