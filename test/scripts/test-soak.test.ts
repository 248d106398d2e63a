import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { soakFiles } from '../../scripts/test-soak.js';

const DIST = fileURLToPath(new URL('../../', import.meta.url));
const SCALE = fileURLToPath(new URL('../../devkit/scale.js', import.meta.url));

test('scale() gives the reduced size unless AGENTTEAM_TEST_SOAK=1, and the full size then', () => {
  const sizes = (soak: string | undefined) => {
    const env = { ...process.env };
    delete env.AGENTTEAM_TEST_SOAK;
    if (soak !== undefined) env.AGENTTEAM_TEST_SOAK = soak;
    const r = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { scale, SOAK, figure } from ${JSON.stringify(SCALE)}; console.log(JSON.stringify([scale(5, 20), SOAK, figure(2000)]))`,
      ],
      { env, encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  assert.deepEqual(sizes(undefined), [5, false, '2,000']);
  assert.deepEqual(sizes('0'), [5, false, '2,000']);
  assert.deepEqual(sizes('1'), [20, true, '2,000']);
});

test('npm run test:soak runs every test file whose imports reach devkit/scale.js, and no other', () => {
  const files = soakFiles().map((f) => relative(`${DIST}test`, f));
  for (const heavy of [
    'tools/tools-process-budget.test.js', // directly
    'lifecycle/daemon-singleton.test.js',
    'turns/turns-shared-store.test.js',
    'auth/auth-rotation.test.js',
    'results/results-gate-property.test.js', // through devkit/gate-property.js
    'mcp/roundtrip-property.test.js', // through devkit/roundtrip.js
    'store/store-domains-postgres.test.js', // its child runs inherit the scale
  ])
    assert.ok(files.includes(heavy), `${heavy} is in ${files.join(', ')}`);
  assert.ok(!files.includes('house/house-rules.test.js'), 'a file without a soak size is not');
});
