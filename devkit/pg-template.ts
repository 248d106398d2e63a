import { createHash, randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunAs } from './pg-binaries.js';

/**
 * initdb once, not once per cluster: the first throwaway cluster (pg-cluster.ts)
 * on a machine initializes a template data directory under the system temp
 * dir, keyed by the binaries directory, the server's user, the initdb
 * arguments and the superuser's password; every cluster after it starts from a copy (made in process, then given to
 * the server's user so the files stay its own). initdb costs seconds of CPU, the
 * copy a fraction of one. Made beside its final name and renamed, so test
 * files starting at once never see half a template.
 */
export async function initData(
  data: string,
  native: string,
  as: RunAs | null,
  initdbArgs: readonly string[],
  /** What the --pwfile holds (its path differs from cluster to cluster). */
  password: string,
  run: (cmd: string, args: string[], as: RunAs | null) => Promise<void>,
): Promise<void> {
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        native,
        as?.uid ?? process.getuid?.(),
        initdbArgs.filter((a) => !a.startsWith('--pwfile=')),
        password,
      ]),
    )
    .digest('hex')
    .slice(0, 16);
  const template = join(tmpdir(), `agentteam-pgdata-${key}`);
  if (!existsSync(join(template, 'PG_VERSION'))) {
    const partial = `${template}.${process.pid}.${randomBytes(4).toString('hex')}`;
    mkdirSync(partial, { mode: 0o700 });
    if (as) chownSync(partial, as.uid, as.gid);
    try {
      await run(join(native, 'bin', 'initdb'), [`--pgdata=${partial}`, ...initdbArgs], as);
      renameSync(partial, template);
    } catch (err) {
      rmSync(partial, { recursive: true, force: true });
      // Another process made the template first; anything else is a real failure.
      if (!existsSync(join(template, 'PG_VERSION'))) throw err;
    }
  }
  // Copied in this process, not by spawning `cp`: the server's user may not be able to search the
  // directories of a test's PATH (`.ci/run` hides programs behind a private directory of links).
  cpSync(template, data, { recursive: true, preserveTimestamps: true });
  if (as) chownTree(data, as.uid, as.gid);
}

/** Gives `dir` and everything under it to the server's user, as `cp -a` run as that user would have. */
function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) chownTree(path, uid, gid);
    else chownSync(path, uid, gid);
  }
}
