import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { accessSync, chmodSync, constants, mkdirSync, statSync } from 'node:fs';

/** $AGENTTEAM_HOME, or ~/.agentteam. Shared by the CLI and the daemon; no other imports. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AGENTTEAM_HOME;
  return fromEnv && fromEnv.length > 0 ? resolve(fromEnv) : join(homedir(), '.agentteam');
}

/** The home cannot be used (missing parent that cannot be made, not a directory, no permission). */
export class HomeError extends Error {
  override name = 'HomeError';
  constructor(
    readonly home: string,
    reason: string,
  ) {
    super(`cannot use ${home} as AGENTTEAM_HOME: ${reason}`);
  }
}

/** Most missing directories made for a home; a deeper one is refused rather than walked. */
export const MAX_HOME_DEPTH = 64;

function reasonOf(err: unknown, path: string): string {
  const e = err as NodeJS.ErrnoException;
  const what: Record<string, string> = {
    ENOENT: 'it cannot be created there',
    ENOTDIR: 'a parent is not a directory',
    EEXIST: 'it exists and is not a directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    ELOOP: 'too many symbolic links',
    ENAMETOOLONG: 'the path is too long',
  };
  return `${(e.code && what[e.code]) ?? e.message} (${e.code ?? 'error'} at ${path})`;
}

/**
 * mkdir -p with a bound: each missing component is made by one plain mkdir,
 * top down, so every failure is an error at once. (Node 20's recursive mkdir
 * loops forever where mkdir answers ENOENT under an existing parent, as in
 * /proc, and blocks the event loop, signals included, while it does.)
 */
function makeDirs(home: string): void {
  const missing: string[] = [];
  for (let p = home; ; p = dirname(p)) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw new HomeError(home, reasonOf(err, p));
      if (dirname(p) === p) throw new HomeError(home, reasonOf(err, p));
      if (missing.length >= MAX_HOME_DEPTH)
        throw new HomeError(home, `more than ${MAX_HOME_DEPTH} of its directories are missing`);
      missing.push(p);
      continue;
    }
    if (!isDir)
      throw new HomeError(
        home,
        p === home ? 'it exists and is not a directory' : `${p} is not a directory`,
      );
    break;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p, { mode: 0o700 });
    } catch (err) {
      // Made by someone else meanwhile is fine if it is a directory.
      if (
        (err as NodeJS.ErrnoException).code === 'EEXIST' &&
        statSync(p, { throwIfNoEntry: false })?.isDirectory()
      )
        continue;
      throw new HomeError(home, reasonOf(err, p));
    }
  }
}

/** Creates the home (0700) if needed and returns it; a home that cannot be used is a HomeError, at once. */
export function ensureHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = resolveHome(env);
  makeDirs(home);
  try {
    chmodSync(home, 0o700);
    accessSync(home, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new HomeError(home, reasonOf(err, home));
  }
  return home;
}

export const homePaths = (home: string) => ({
  daemonJson: join(home, 'daemon.json'),
  lastPort: join(home, 'daemon.port'),
  operatorToken: join(home, 'operator.token'),
  lock: join(home, 'daemon'),
  runtimeDir: join(home, 'runtime'),
  store: join(home, 'store.db'),
  profile: join(home, 'profile.json'),
  log: join(home, 'daemon.log'),
  spill: join(home, 'spill'),
  tools: join(home, 'tools'),
  memory: join(home, 'memory'),
  kb: join(home, 'kb'),
  /** The owner-only directory (0700) of the operator API's unix socket, and the socket (0600). */
  socketDir: join(home, 'sock'),
  socket: join(home, 'sock', 'api.sock'),
});
