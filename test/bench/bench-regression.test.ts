import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baselineBin, buildBaseline } from '../../bench/regression.js';

/**
 * How `npm run bench -- regression` finds its baseline, without running any
 * load: a given directory must be a built checkout, and a commit must exist.
 * (Building and measuring take minutes; bench/README.md has the runs.)
 */

test('a baseline directory that is not built is refused, naming the file it lacks', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-baseline-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await assert.rejects(
    baselineBin(['regression', '--baseline', dir]),
    (e: Error) =>
      e.message.includes(join(dir, 'dist', 'cli', 'bin.js')) && /not built/.test(e.message),
  );
  const saved = process.env.BENCH_BASELINE;
  process.env.BENCH_BASELINE = dir;
  t.after(() => {
    if (saved === undefined) delete process.env.BENCH_BASELINE;
    else process.env.BENCH_BASELINE = saved;
  });
  await assert.rejects(baselineBin(['regression']), /not built/);
});

test('this checkout, built, is accepted as a baseline (an A/A run)', async () => {
  const root = join(import.meta.dirname, '..', '..', '..');
  const { bin } = await baselineBin(['regression', '--baseline', root]);
  assert.equal(bin, join(root, 'dist', 'cli', 'bin.js'));
});

test('a flag without its value and a commit that does not exist are errors before anything is built', async (t) => {
  await assert.rejects(baselineBin(['regression', '--baseline']), /--baseline needs a value/);
  await assert.rejects(
    baselineBin(['regression', '--baseline-commit', '--json']),
    /--baseline-commit needs a value/,
  );
  if (spawnSync('git', ['--version']).error) {
    // Without git a commit cannot be exported at all: the error says so and names the way round it.
    await assert.rejects(
      buildBaseline('0000000000000000000000000000000000000bad'),
      /needs git, which is not installed: pass a built checkout with --baseline DIR/,
    );
    t.skip(
      'git is not installed: an unknown commit could not be looked up (the missing-git error was checked instead)',
    );
    return;
  }
  await assert.rejects(buildBaseline('0000000000000000000000000000000000000bad'), /rev-parse/);
});
