import { after } from 'node:test';
import { attachCluster, startCluster, type Cluster } from './pg-cluster.js';

export { PG_PASSWORD, databaseUrl } from './pg-cluster.js';

/**
 * PostgreSQL for a test file: one cluster (pg-cluster.ts), started on first
 * use and stopped after the file's last test; one fresh database per call.
 * With AGENTTEAM_TEST_PG_PORT set (store-domains-postgres.test.ts runs many
 * files on one cluster it started), the databases are made on that cluster.
 */
let cluster: Promise<Cluster> | null = null;

// Registered when the harness is imported (file level), so the cluster lives until the file's last test.
after(async () => {
  const c = await cluster?.catch(() => null);
  cluster = null;
  await c?.stop();
});

/** A new empty database on this file's cluster; returns its URL. */
export async function freshDatabase(): Promise<string> {
  return (await clusterOfFile()).createDatabase();
}

/** The file's cluster, for tests that take the database away and bring it back. */
export async function clusterOfFile(): Promise<Cluster> {
  const shared = process.env.AGENTTEAM_TEST_PG_PORT;
  cluster ??= shared ? attachCluster(Number(shared)) : startCluster();
  return cluster;
}
