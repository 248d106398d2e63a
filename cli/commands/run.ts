import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { constants, homedir } from 'node:os';
import { resolveHome } from '../../lib/home.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { daemonOperator, readDaemonInfo, readOperatorToken } from '../daemon-client.js';
import { buildRuntimeEnv } from '../../lib/runtime-env.js';
import { isErrorCode } from '../../catalog/errors.js';
import { noDaemon, refuse } from '../refusal.js';
import { driveAppServer } from './run-app-server.js';
import { openLease, type OpenLease } from '../lease.js';
import { DEFAULT_RESTART_WAIT_S, followDaemon, stopRuntime } from '../run-follow.js';
import type { LeaseRequest } from '../../catalog/operator/lease.js';
import type { RuntimeKind } from '../../catalog/runtimes.js';

const REVOKE_WAIT_MS = 3_000;

/**
 * `agentteam run --server S --agent A [...] -- CMD [ARGS...]`: opens a
 * runtime lease (a connection the daemon watches for our death), starts CMD
 * with the injected environment and our stdio, revokes when CMD exits and
 * exits with CMD's status (128+n for a signal). When the daemon restarts, the
 * runtime gets a fresh authorization from the new one (run-follow.ts), or is
 * stopped with a one-line reason and exit status 3.
 */
export async function main(opts: Record<string, unknown>, args: string[]): Promise<number> {
  const [cmd, ...cmdArgs] = args;
  if (!cmd) {
    return refuse('run', 'usage', 'run needs a command after --');
  }
  for (const [flag, v] of [
    ['--server', opts.server],
    ['--agent', opts.agent],
  ] as const) {
    // The daemon checks again; refusing here saves a round trip and names the flag.
    if (!isEntityId(v)) {
      return refuse('run', 'usage', `${flag} must be ${ENTITY_ID_RULE}`);
    }
  }
  const appServer = opts.runtime === 'codex-app-server';
  if (appServer !== (typeof opts.prompt === 'string')) {
    return refuse(
      'run',
      'usage',
      appServer
        ? "--runtime codex-app-server needs --prompt TEXT (the primary thread's first turn)"
        : '--prompt is only for --runtime codex-app-server',
    );
  }
  if (opts.run !== undefined) {
    return refuse(
      'run',
      'usage',
      "--run is no longer accepted: the daemon mints each run's session and run ids itself; use --session NAME for a label",
    );
  }
  if ((typeof opts.turnTarget === 'string') !== (typeof opts.turnMessage === 'string')) {
    return refuse('run', 'usage', '--turn-target and --turn-message go together');
  }
  const home = resolveHome();
  const info = readDaemonInfo(home);
  if (!info) return noDaemon('run', home);
  const str = (k: string) => (typeof opts[k] === 'string' ? (opts[k] as string) : null);
  // commander gave --server its default, required --agent and kept --runtime to the known kinds.
  const body: LeaseRequest = {
    serverId: str('server') as string,
    agentId: str('agent') as string,
    sessionName: str('session'),
    workdir: str('workdir'),
    runtime: (str('runtime') ?? 'generic') as RuntimeKind,
    pid: process.pid,
    turnTarget: str('turnTarget'),
    turnMessageId: str('turnMessage'),
    primaryThreadId: process.env.AGENTTEAM_PRIMARY_THREAD_ID ?? null,
    ...(typeof opts.ttl === 'number' ? { ttlSeconds: opts.ttl } : {}),
    // The user's Codex home as this process sees it: the driver reads (never writes) its config.
    env: { CODEX_HOME: process.env.CODEX_HOME || join(homedir(), '.codex') },
    ...(opts.runtime === 'codex' || appServer
      ? { runtimeVersion: runtimeVersion(basename(cmd) === 'codex' ? cmd : 'codex') }
      : {}),
  };
  let current: OpenLease;
  try {
    current = await openLease(info.url, readOperatorToken(home), body);
  } catch (err) {
    // Nothing was started: the command's stdout is still ours, for the refusal's envelope.
    const { exit, code } = err as { exit?: number; code?: unknown };
    refuse(
      'run',
      exit === 3 ? 'unavailable' : isErrorCode(code) ? code : 'upstream_error',
      (err as Error).message,
    );
    return exit ?? 1;
  }
  const { lease } = current;
  const env = buildRuntimeEnv(process.env, lease, lease.env);
  // Driver options follow the runtime's own executable. A wrapped command (`sh -c '...'`) would take
  // them as its own; then a shim first on PATH adds them to the runtime the command starts.
  // The daemon's own `agentteam` comes first on PATH, whatever the runtime's PATH held.
  const direct = !lease.argsFor || basename(cmd) === lease.argsFor;
  env.PATH = [direct ? undefined : lease.shimDir, lease.binDir, env.PATH]
    .filter(Boolean)
    .join(delimiter);
  if (appServer) {
    // The daemon starts `codex app-server` itself, with this environment, and drives it.
    const plain: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) plain[k] = v;
    const code = await driveAppServer(info.url, readOperatorToken(home), lease.authorizationId, {
      command: [cmd, ...cmdArgs],
      env: plain,
      cwd: body.workdir ?? process.cwd(),
      prompt: opts.prompt as string,
    });
    await Promise.race([
      daemonOperator(home)
        .send('runtimes.revoke', { params: { id: lease.authorizationId } })
        .catch(() => undefined),
      new Promise((r) => setTimeout(r, REVOKE_WAIT_MS).unref()),
    ]);
    current.req.destroy();
    return code;
  }
  if (direct && lease.tokenEnv) {
    try {
      env[lease.tokenEnv] = readFileSync(lease.tokenFile, 'utf8').trim();
    } catch (err) {
      process.stderr.write(`agentteam: cannot read the runtime token: ${(err as Error).message}\n`);
      current.req.destroy(); // the daemon revokes when the lease connection closes
      return 1;
    }
  }
  const child = spawn(cmd, direct ? [...lease.args, ...cmdArgs] : cmdArgs, {
    stdio: 'inherit',
    env,
    ...(body.workdir ? { cwd: body.workdir } : {}),
  });
  // A terminal's Ctrl-C already reaches the child (same process group); forwarding it
  // again would look like a second Ctrl-C. Signals sent to `run` alone are passed on.
  const forward = (sig: NodeJS.Signals) => () => {
    if (sig !== 'SIGINT' || !process.stdin.isTTY) child.kill(sig);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, forward(sig));
  let exited = false;
  let stopReason: string | null = null;
  const code = new Promise<number>((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`agentteam: cannot start ${cmd}: ${err.message}\n`);
      resolve(127);
    });
    child.on('exit', (c, signal) => resolve(c ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  void code.then(() => (exited = true));
  const waitMs =
    (typeof opts.restartWait === 'number' ? opts.restartWait : DEFAULT_RESTART_WAIT_S) * 1000;
  void followDaemon({
    home,
    pid: info.pid,
    body,
    first: current,
    waitMs,
    exited: () => exited,
    renewed: (next) => {
      current = next;
    },
  }).then((reason) => {
    if (reason !== null && !exited) stopReason = stopRuntime(child, reason);
  });
  const status = await code;
  // Revoke explicitly (waits for the directory to go), then drop the lease connection.
  await Promise.race([
    daemonOperator(home)
      .send('runtimes.revoke', { params: { id: current.lease.authorizationId } })
      .catch(() => undefined),
    new Promise((r) => setTimeout(r, REVOKE_WAIT_MS).unref()),
  ]);
  current.req.destroy();
  return stopReason === null ? status : 3;
}

/** The runtime's `--version` line, or null when it cannot be run (the daemon then assumes a current build). */
function runtimeVersion(bin: string): string | null {
  try {
    const out = execFileSync(bin, ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.trim().split('\n')[0]?.slice(0, 200) ?? null;
  } catch {
    return null;
  }
}
