import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon as startInProcess } from '../../daemon/server.js';
import { REMEMBERED } from '../../daemon/clienttools/remembered.js';
import { openLease } from '../../devkit/lease.js';
import { rpc } from '../../devkit/http.js';
import type { Daemon } from '../../devkit/daemon.js';
import { connectApp, echoTool } from '../../devkit/client-tools.js';

const statePath = (home: string) => join(home, 'state', 'client-tools.json');
const readNames = (home: string) =>
  (JSON.parse(readFileSync(statePath(home), 'utf8')) as { names: string[] }).names;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** 64-byte-limit names near the limit (60 bytes), so the byte bound is the one that binds. */
const longName = (round: number, i: number) => `r${round}_t${i}_`.padEnd(60, 'x');

async function boot(home: string, logs: string[] = []) {
  const daemon = await startInProcess({ home, log: (l) => logs.push(l) });
  const d: Daemon = {
    home,
    url: daemon.url,
    pid: process.pid,
    cli: async () => ({ code: 1, stdout: '', stderr: '' }),
    close: async () => undefined,
  };
  return { d, stop: () => daemon.stop('test') };
}

test('client tools: 600 registrations of fresh names keep the remembered names bounded and registration as fast at the end as at the start', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-remembered-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  // An earlier daemon remembered keep_me, and the profile denies it: it must outlive every bound.
  mkdirSync(join(home, 'state'), { recursive: true, mode: 0o700 });
  writeFileSync(statePath(home), JSON.stringify({ version: 1, names: ['keep_me', 'old_one'] }));
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({ agents: [{ id: 'a1', denyTools: ['keep_me'] }] }),
  );
  const logs: string[] = [];
  const { d, stop } = await boot(home, logs);
  let stopped = false;
  t.after(() => (stopped ? undefined : stop()));
  assert.ok(!logs.some((l) => l.includes('denyTools')), logs.join('\n'));
  const app = await connectApp(d);
  t.after(() => app.close());

  // An agent calls a tool while the app registers: its call must not wait behind the registrations' bookkeeping.
  const lease = await openLease(d, { serverId: 'local', agentId: 'a2' });
  t.after(() => lease.close());
  const agentCall = async () => {
    const started = performance.now();
    const r = await rpc(lease.mcpUrl, lease.token(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'message_history_read', arguments: { target: 'channel:general' } },
    });
    assert.equal(r.status, 200);
    return performance.now() - started;
  };
  const took: number[] = [];
  const calls: number[] = [];
  for (let round = 0; round < 600; round++) {
    const tools = Array.from({ length: 64 }, (_, i) => echoTool(longName(round, i)));
    const started = performance.now();
    const [r, call] = await Promise.all([
      app.register('churn', tools),
      round % 4 === 0 ? agentCall() : Promise.resolve(-1),
    ]);
    took.push(performance.now() - started);
    if (call >= 0) calls.push(call);
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const early = median(took.slice(20, 120));
  const late = median(took.slice(-100));
  // Before the bound the file grew to 2.6 MB and was rewritten on each registration: the late ones took several times as long.
  assert.ok(
    late < early * 2 + 10,
    `median registration: ${early.toFixed(1)} ms early, ${late.toFixed(1)} ms late`,
  );
  const callEarly = median(calls.slice(5, 30));
  const callLate = median(calls.slice(-25));
  assert.ok(
    callLate < callEarly * 2 + 10,
    `median agent call beside a registration: ${callEarly.toFixed(1)} ms early, ${callLate.toFixed(1)} ms late`,
  );

  app.close();
  await stop();
  stopped = true;
  const size = statSync(statePath(home)).size;
  assert.ok(size <= REMEMBERED.fileBytes, `state file is ${size} bytes`);
  const names = readNames(home);
  assert.ok(names.length <= REMEMBERED.names, `${names.length} names`);
  assert.ok(names.includes('keep_me'), 'a name the profile denies is never forgotten');
  assert.ok(!names.includes('old_one'), 'the oldest are forgotten first');
  assert.ok(!names.includes(longName(0, 0)) && !names.includes(longName(500, 0)));
  // The newest registration is kept whole and last (oldest first).
  assert.deepEqual(
    names.slice(-64),
    Array.from({ length: 64 }, (_, i) => longName(599, i)),
  );
  assert.deepEqual(
    names.slice(-128, -64),
    Array.from({ length: 64 }, (_, i) => longName(598, i)),
  );

  // The next boot reads them back: the profile is still valid.
  const logs2: string[] = [];
  const again = await boot(home, logs2);
  await again.stop();
  assert.ok(!logs2.some((l) => l.includes('denyTools')), logs2.join('\n'));
});

test('client tools: a registration followed at once by a clean stop is on disk (the write off the request path loses nothing)', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-remembered-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const { d, stop } = await boot(home);
  const app = await connectApp(d);
  for (let i = 0; i < 5; i++)
    assert.equal((await app.register(`g${i}`, [echoTool(`g${i}_a`)])).status, 200);
  app.close();
  await stop();
  assert.deepEqual(readNames(home), ['g0_a', 'g1_a', 'g2_a', 'g3_a', 'g4_a']);
});
