import { mkdir, chmod, rm } from 'node:fs/promises';

/** Removes a credential directory; injectable so tests can make cleanup fail. */
export type DirRemover = (dir: string) => Promise<void>;

export const removeDir: DirRemover = (dir) => rm(dir, { recursive: true, force: true });

/** Creates the runtime root and one private directory in it, both 0700 regardless of umask. */
export async function createPrivateDir(runtimeDir: string, dir: string): Promise<void> {
  await mkdir(runtimeDir, { recursive: true, mode: 0o700 });
  await chmod(runtimeDir, 0o700);
  await mkdir(dir, { mode: 0o700 });
  await chmod(dir, 0o700);
}
