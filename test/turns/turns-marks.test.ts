import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { post, waitTurn } from '../../devkit/turns.js';

/**
 * The launch marks `npm run bench -- turns` splits post → exec with: a
 * daemon with the bench's preload publishes every step of a delivered
 * turn, once each and in order, and the preload writes them at exit.
 */

const PRELOAD = fileURLToPath(new URL('../../bench/turns-marks.js', import.meta.url));
const STEPS = ['queued', 'claimed', 'lease', 'leased', 'prepared', 'spawned'];

let d: SpawnedDaemon | undefined;
after(() => d?.close());

test('a delivered turn publishes each launch step once, in order', async () => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-turns-marks-'));
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [{ id: 'a1', runtime: 'generic', launch: { command: ['/bin/true'] } }],
    }),
  );
  const marks = join(home, 'marks');
  d = await startDaemon({
    home,
    env: {
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${PRELOAD}`].filter(Boolean).join(' '),
      AGENTTEAM_BENCH_TURN_MARKS: marks,
    },
  });
  const { turns } = await post(d, 'dm:a1', 'hello');
  const turn = await waitTurn(d, turns[0]!.turnId);
  assert.equal(turn.state, 'succeeded');
  await d.stop();
  const files = readdirSync(home).filter((f) => f.startsWith('marks.'));
  assert.equal(files.length, 1, `one marks file, from the daemon: ${files.join(', ')}`);
  const lines = readFileSync(join(home, files[0]!), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { turnId: string; step: string; at: number });
  assert.deepEqual(
    lines.map((l) => l.step),
    STEPS,
  );
  assert.ok(lines.every((l) => l.turnId === turn.id));
  for (let i = 1; i < lines.length; i++)
    assert.ok(lines[i]!.at >= lines[i - 1]!.at, lines[i]!.step);
});
