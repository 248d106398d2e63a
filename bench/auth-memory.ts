import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../lib/clock.js';
import { defaultCatalog } from '../catalog/index.js';
import { AuthorizationStore } from '../daemon/auth/store.js';
import { createJoseSigner } from '../daemon/auth/signer.js';
import { fsTokenWriter } from '../daemon/auth/token-file.js';
import { pinCatalog } from '../daemon/auth/pinned-catalog.js';
import { MAX_LEASES } from '../daemon/auth/limits.js';

/**
 * Run with --expose-gc by bench/auth-throughput.ts: heap growth per active
 * authorization with MAX_LEASES leases, each with a published generation, a
 * renewal timer and a verified-token cache entry. Prints one JSON line.
 */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const home = mkdtempSync(join(tmpdir(), 'agentteam-bench-mem-'));
const store = new AuthorizationStore({
  clock: systemClock,
  signer: createJoseSigner(systemClock, 12 * 3600),
  writer: fsTokenWriter,
  runtimeDir: join(home, 'runtime'),
  catalog: () => pinCatalog(defaultCatalog()),
});
// Warm every code path once so lazily created shared state is not counted.
const warm = await store.create({ serverId: 'warm', agentId: 'warm' });
await store.authenticate(readFileSync(warm.tokenFile, 'utf8'));
await store.revoke(warm.id, 'warm');
const measure = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
};
const before = measure();
for (let i = 0; i < MAX_LEASES; i++) {
  const a = await store.create({
    serverId: 'bench',
    agentId: `agent-${i}`,
    sessionId: `session-${i}`,
    runId: `run-${i}`,
    workdir: `/work/agent-${i}`,
  });
  const ok = await store.authenticate(readFileSync(a.tokenFile, 'utf8'));
  if (!ok.ok) throw new Error('token rejected');
}
const after = measure();
process.stdout.write(
  `${JSON.stringify({ leases: store.stats().leases, bytesPerAuthorization: (after - before) / MAX_LEASES })}\n`,
);
await store.shutdown();
rmSync(home, { recursive: true, force: true });
