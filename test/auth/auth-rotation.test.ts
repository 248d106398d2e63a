import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { startDaemon } from '../../daemon/server.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import { expiryMs } from '../../devkit/token.js';
import { scale } from '../../devkit/scale.js';

function get(url: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads the token file in a tight loop on its own thread; reports new tokens and any bad read. */
const READER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
let last = '', reads = 0, bad = [];
let stop = false;
parentPort.on('message', (m) => { if (m === 'stop') stop = true; });
const shape = /^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$/;
function loop() {
  for (let i = 0; i < 200 && !stop; i++) {
    let t;
    try { t = fs.readFileSync(workerData.file, 'utf8'); } catch (e) { bad.push('read:' + e.code); continue; }
    reads++;
    if (!shape.test(t)) { bad.push('shape:' + t.length); continue; }
    if (t !== last) { last = t; parentPort.postMessage({ token: t }); }
  }
  if (stop) parentPort.postMessage({ done: true, reads, bad });
  else setImmediate(loop);
}
loop();
`;

/** Rotations: 250 in `npm test`, 1,000 at soak scale (devkit/scale.ts). */
const ROTATIONS = scale(250, 1000);

test(`a reader across ${ROTATIONS} rotations never sees a missing, empty or partial file; every token works until its own expiry`, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-h2-rot-'));
  const clock = new FakeClock(Date.now());
  const daemon = await startDaemon({ home, clock, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const ttlMs = 10_000;
  const auth = await daemon.store.create({ serverId: 's', agentId: 'a', ttlMs });
  const url = `${daemon.url}/api/internal/exec/servers/s/agents/a/catalog`;
  const worker = new Worker(READER, { eval: true, workerData: { file: auth.tokenFile } });
  const seen: { token: string; checked: boolean }[] = [];
  let done: { reads: number; bad: string[] } | null = null;
  worker.on('message', (m: { token?: string; done?: boolean; reads: number; bad: string[] }) => {
    if (m.token) seen.push({ token: m.token, checked: false });
    if (m.done) done = m;
  });
  t.after(() => worker.terminate());

  const first = readFileSync(auth.tokenFile, 'utf8');
  let accepted = 0;
  for (let i = 0; i < ROTATIONS; i++) {
    const before = auth.generations[auth.generations.length - 1]!.id;
    clock.advance(clock.nextAt()! - clock.now());
    // Sign + publish are asynchronous; the next rotation is scheduled only once the new file is in place.
    while (
      auth.generations[auth.generations.length - 1]!.id === before ||
      clock.nextAt() === undefined
    ) {
      await new Promise((r) => setImmediate(r));
    }
    // A token the reader saw is accepted exactly while it is within its own expiry (+5 s
    // tolerance). The reader's messages may arrive a rotation late, so both outcomes occur.
    for (const s of seen) {
      if (s.checked) continue;
      const live = clock.now() < expiryMs(s.token) + 5_000;
      assert.equal(
        await get(url, s.token),
        live ? 200 : 403,
        `rotation ${i}: a token read from the file is accepted until its expiry`,
      );
      s.checked = true;
      if (live) accepted++;
    }
  }
  worker.postMessage('stop');
  while (!done) await new Promise((r) => setTimeout(r, 5));
  const result = done as { reads: number; bad: string[] };
  assert.deepEqual(result.bad, [], 'no missing, empty or partial read');
  assert.ok(result.reads > ROTATIONS, `reader kept reading (${result.reads} reads)`);
  assert.ok(accepted >= ROTATIONS / 2, `tokens accepted while live: ${accepted} of ${seen.length}`);
  assert.ok(auth.generations.length <= 3, 'old generations are pruned');
  // The predecessor is still valid (its own expiry has not passed) and the first one is long expired.
  const prev = auth.generations[auth.generations.length - 2]!;
  assert.equal(
    await get(url, prev.token),
    200,
    'previous generation stays valid until its own expiry',
  );
  assert.equal(await get(url, first), 403, 'the first generation expired');
  assert.deepEqual(
    readdirSync(join(home, 'runtime')).length,
    1,
    'one directory, no leftover temp dirs',
  );
  assert.deepEqual(readdirSync(auth.dir), ['token'], 'no leftover temp files');
});
