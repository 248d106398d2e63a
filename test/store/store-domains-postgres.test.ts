import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCluster } from '../../devkit/pg-cluster.js';
import { SOAK } from '../../devkit/scale.js';

/**
 * Beyond the store contract's case table: every suite that drives the
 * daemon's app in process (tasks, projects, reviews, approvals, schedules,
 * workflows, agent edits, idempotency selectors, the byte-exact round-trip
 * properties) runs a second time with its store on PostgreSQL
 * (AGENTTEAM_TEST_STORE=postgres, see devkit/inproc.ts). One file at a time,
 * so it adds little to the machine's load while the rest of `npm test` runs,
 * and one cluster for them all (AGENTTEAM_TEST_PG_PORT, see devkit/pg.ts):
 * each test still gets a database of its own.
 */
/** dist/test: the suites sit one folder deep under it, each in the folder of the code it tests. */
const TESTS = dirname(dirname(fileURLToPath(import.meta.url)));

test('every in-process domain suite passes with its store on PostgreSQL', {
  timeout: 600_000,
}, async (t) => {
  const files = readdirSync(TESTS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(TESTS, d.name)).map((f) => join(d.name, f)))
    .filter(
      (f) =>
        f.endsWith('.test.js') &&
        basename(f) !== 'store-contract.test.js' &&
        basename(f) !== 'store-domains-postgres.test.js',
    )
    .filter((f) => readFileSync(join(TESTS, f), 'utf8').includes("from '../../devkit/inproc.js'"));
  assert.ok(files.length >= 6, `found only ${files.join(', ')}`);
  // The suites inherit AGENTTEAM_TEST_SOAK: under `npm run test:soak` their heavy tests run at full size here too.
  t.diagnostic(`suites (${SOAK ? 'soak' : 'quick'} scale): ${files.join(', ')}`);
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const child = spawn(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-reporter=tap', ...files.map((f) => join(TESTS, f))],
    {
      // Without NODE_TEST_CONTEXT the child is a test runner of its own, not a reporter for this one.
      env: {
        ...withoutTestContext(process.env),
        AGENTTEAM_TEST_STORE: 'postgres',
        AGENTTEAM_TEST_PG_PORT: String(cluster.port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  const summary = out
    .split('\n')
    .filter((l) => /^# (tests|pass|fail) /.test(l))
    .join(', ');
  t.diagnostic(summary);
  const failures = out.split('\n').filter((l) => /^\s*not ok /.test(l));
  assert.equal(code, 0, `on PostgreSQL: ${summary}\n${failures.join('\n')}\n${out.slice(-4000)}`);
  assert.match(summary, /# fail 0/);
});

function withoutTestContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _ctx, ...rest } = env;
  return rest;
}
