import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPORTER = fileURLToPath(new URL('../../scripts/test-report.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs node's test runner on `files` in `dir` with the report `npm test` prints; resolves with its stdout and exit status. */
function runReport(dir: string, files: string[]): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env };
  // Inside a test file the runner marks its children; a runner started here must be a top-level one.
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--test',
        '--test-concurrency=2',
        `--test-reporter=${REPORTER}`,
        '--test-reporter-destination=stdout',
        ...files,
      ],
      { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

test('the npm test report ends with one "not ok FILE › TEST" line per failure, then the runner\'s closing counts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-report-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'a.test.mjs'),
    `import { test } from 'node:test';
import assert from 'node:assert';
test('passes', () => {});
test('compares', () => { assert.equal(1, 2); });
test('group', async (t) => { await t.test('inner', () => { throw new Error('inner broke'); }); await t.test('fine', () => {}); });
test('needs rg', (t) => t.skip('rg is not installed'));
`,
  );
  writeFileSync(
    join(dir, 'b.test.mjs'),
    `import { test } from 'node:test';\ntest('b passes', () => {});\n`,
  );
  writeFileSync(join(dir, 'c.test.mjs'), `throw new Error('does not load');\n`);
  const { code, out } = await runReport(dir, ['a.test.mjs', 'b.test.mjs', 'c.test.mjs']);
  assert.equal(code, 1);
  const lines = out.trimEnd().split('\n');
  const closing = lines.slice(-8);
  assert.deepEqual(
    closing.map((l) => l.split(' ').slice(0, 2).join(' ')),
    [
      '# tests',
      '# suites',
      '# pass',
      '# fail',
      '# cancelled',
      '# skipped',
      '# todo',
      '# duration_ms',
    ],
  );
  assert.equal(closing[2], '# pass 3');
  assert.equal(closing[3], '# fail 4');
  const failing = lines.slice(lines.lastIndexOf('Failing tests:') + 1, -9);
  assert.deepEqual(failing, [
    'not ok a.test.mjs › compares',
    'not ok a.test.mjs › group › inner',
    'not ok c.test.mjs (the file itself)',
  ]);
  // Each failure is shown with its error once, above the summary; the skip with its reason.
  assert.match(out, /✖ a\.test\.mjs › compares\n\s+AssertionError[^\n]*1 == 2/);
  assert.match(out, /✖ c\.test\.mjs \(the file itself\)\n[\s\S]*Error: does not load/);
  assert.match(out, /Skipped \(1\):\n {2}- a\.test\.mjs › needs rg: rg is not installed\n/);
  assert.match(out, /^✔ b\.test\.mjs \(1 tests, [0-9.]+ s\)$/m);
  // Short: per file one line, no TAP.
  assert.doesNotMatch(out, /^TAP version|^ok \d/m);
});

test('a green run ends with the counts and names no failure', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-report-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'ok.test.mjs'),
    `import { test } from 'node:test';\ntest('one', () => {});\ntest('two', () => {});\n`,
  );
  // ok.test.mjs finishes first but is reported after slow.test.mjs: each count must still be its own.
  writeFileSync(
    join(dir, 'slow.test.mjs'),
    `import { test } from 'node:test';\ntest('waits', () => new Promise((r) => setTimeout(r, 800)));\n`,
  );
  const { code, out } = await runReport(dir, ['slow.test.mjs', 'ok.test.mjs']);
  assert.equal(code, 0);
  assert.match(out, /^✔ ok\.test\.mjs \(2 tests, /m);
  assert.match(out, /^✔ slow\.test\.mjs \(1 tests, /m);
  assert.doesNotMatch(out, /not ok|Failing tests/);
  assert.match(out, /# pass 3\n# fail 0\n[\s\S]*# duration_ms [0-9.]+\n$/);
});

test('package.json runs the whole suite with this report on stdout and the full TAP in a file', () => {
  const script = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } }
  ).scripts.test;
  assert.match(
    script,
    /--test-reporter=\.\/dist\/scripts\/test-report\.js --test-reporter-destination=stdout/,
  );
  assert.match(script, /--test-reporter=tap --test-reporter-destination=dist\/test-results\.tap/);
});
