import { open, rename, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export const TOKEN_FILE_NAME = 'token';

/** Publishes a token into a private directory. Injectable so tests can make publication fail. */
export interface TokenWriter {
  publish(dir: string, token: string): Promise<void>;
}

/**
 * Atomic replace: a reader of `<dir>/token` sees the old complete file or the
 * new complete file, never a missing, empty or partial one. The mode is set
 * with fchmod because the process umask would otherwise shape it.
 */
export const fsTokenWriter: TokenWriter = {
  async publish(dir, token) {
    const tmp = join(dir, `.token-${randomBytes(6).toString('hex')}.tmp`);
    let renamed = false;
    try {
      const fh = await open(tmp, 'wx', 0o600);
      try {
        await fh.chmod(0o600);
        await fh.writeFile(token, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, join(dir, TOKEN_FILE_NAME));
      renamed = true;
      // The new token is in place once the rename succeeded; a failing directory
      // fsync only weakens crash durability, so it must not turn into a failed
      // publication (that would revoke the token the runtime now reads).
      await syncDir(dir).catch(() => undefined);
    } finally {
      if (!renamed) await unlink(tmp).catch(() => undefined);
    }
  },
};

async function syncDir(dir: string): Promise<void> {
  const dh = await open(dir, 'r');
  try {
    await dh.sync();
  } finally {
    await dh.close();
  }
}
