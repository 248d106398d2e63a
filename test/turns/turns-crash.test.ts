import { strict as assert } from 'node:assert';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { answerRuntime, post, waitTurn } from '../../devkit/turns.js';

/**
 * A daemon killed with -9 mid-turn: its runtime's watchdog sees the daemon's
 * pipe close and stops the whole process group, so nothing is left running;
 * the next daemon records the turn interrupted and never runs it again.
 */

let d: SpawnedDaemon | undefined;
after(() => d?.close());

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !existsSync(`/proc/${pid}`);
}

test('kill -9 of the daemon mid-turn leaves no runtime and the turn interrupted, not re-run', async () => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-turns-crash-'));
  const record = join(home, 'record');
  mkdirSync(record);
  // The runtime starts a grandchild in its group too: both must go.
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'sleeper',
          launch: { command: answerRuntime(['child', 'record', record, 'sleep', '60000']) },
        },
      ],
      teams: [],
    }),
  );
  d = await startDaemon({ home });
  const p = await post(d, 'dm:sleeper', 'long job');
  const id = p.turns[0]!.turnId;
  await waitTurn(d, id, ['running']);
  let rec: { pid: number; grandchild: number } | undefined;
  for (let i = 0; i < 100 && !rec; i++) {
    const f = readdirSync(record)[0];
    if (f)
      rec = JSON.parse(readFileSync(join(record, f), 'utf8')) as {
        pid: number;
        grandchild: number;
      };
    else await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(rec, 'the runtime started');
  assert.ok(existsSync(`/proc/${rec.pid}`));
  d.kill9();
  // TERM at once from the watchdog (KILL after its 3 s grace at worst).
  assert.ok(await gone(rec.pid, 6_000), `runtime ${rec.pid} outlived the daemon`);
  assert.ok(await gone(rec.grandchild, 6_000), `its child ${rec.grandchild} outlived the daemon`);
  await d.start();
  const t = await waitTurn(d, id);
  assert.equal(t.state, 'interrupted');
  assert.equal(t.error, 'daemon_stopped');
  // Never started again: one record only, and no turn is queued or running.
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(readdirSync(record).length, 1);
  const list = JSON.parse((await d.cli(['turn', 'list'])).stdout).data.turns as { state: string }[];
  assert.deepEqual(
    list.map((x) => x.state),
    ['interrupted'],
  );
});
