import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdirSync, chmodSync } from 'node:fs';

/** $AGENTTEAM_HOME, or ~/.agentteam. Shared by the CLI and the daemon; no other imports. */
export function resolveHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.AGENTTEAM_HOME;
  return fromEnv && fromEnv.length > 0 ? resolve(fromEnv) : join(homedir(), '.agentteam');
}

/** Creates the home (0700) if needed and returns it. */
export function ensureHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = resolveHome(env);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  return home;
}

export const homePaths = (home: string) => ({
  daemonJson: join(home, 'daemon.json'),
  operatorToken: join(home, 'operator.token'),
  lock: join(home, 'daemon'),
  runtimeDir: join(home, 'runtime'),
  store: join(home, 'store.db'),
  profile: join(home, 'profile.json'),
  log: join(home, 'daemon.log'),
  spill: join(home, 'spill'),
  tools: join(home, 'tools'),
});
