import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { defaultCatalog } from '../../catalog/catalog.js';
import { errorEnvelopeSchema } from '../../catalog/envelope.js';
import {
  exampleLine,
  helpIndexOf,
  INLINE_EXAMPLES,
  renderActionHelp,
  renderDomainHelp,
  renderExecIndex,
} from '../../catalog/help.js';
import { standaloneSchema } from '../../catalog/schemas.js';
import { ESM_BIN, packageVersion, pool, runCli } from '../../devkit/cli.js';

const catalog = defaultCatalog();
const index = helpIndexOf(catalog);
const entries = [...catalog.entries.values()];

test('agentteam --version and -V print the package version', async () => {
  for (const flag of ['--version', '-V']) {
    const r = await runCli([flag]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `${packageVersion()}\n`);
    assert.equal(r.stderr, '');
  }
});

test('the ESM entry dist/cli/bin.js runs the same binary: exec help, a local validation failure and a commander command', async () => {
  const [help, bad, version] = await Promise.all([
    runCli(['exec', 'task', 'create', '--help'], { bin: ESM_BIN }),
    runCli(['exec', 'task', 'create', '{"title":""}'], { bin: ESM_BIN }),
    runCli(['--version'], { bin: ESM_BIN }),
  ]);
  assert.equal(help.code, 0);
  assert.equal(help.stdout, (await runCli(['exec', 'task', 'create', '--help'])).stdout);
  assert.equal(bad.code, 2);
  assert.equal(
    (JSON.parse(bad.stdout) as { error: { code: string } }).error.code,
    'validation_failed',
  );
  assert.equal(version.code, 0);
  assert.equal(version.stdout.trim(), packageVersion());
});

test('agentteam --help lists every command', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  for (const name of ['exec', 'daemon', 'run', 'message'])
    assert.match(r.stdout, new RegExp(`^  ${name}\\b`, 'm'));
});

test('exec --help is the mixed index: one line per domain and the inline lifecycle examples', async () => {
  const r = await runCli(['exec', '--help']);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  for (const d of index.domains)
    assert.match(r.stdout, new RegExp(`^  ${d.domain} +${d.line.replace(/[.()]/g, '\\$&')}`, 'm'));
  for (const key of INLINE_EXAMPLES) {
    const [domain, action] = key.split('/') as [string, string];
    const a = index.domains
      .find((d) => d.domain === domain)
      ?.actions.find((x) => x.action === action);
    assert.ok(a);
    assert.ok(r.stdout.includes(exampleLine(domain, a)), `inline example of ${key}`);
  }
  assert.match(r.stdout, /agentteam exec <domain> --help/);
  assert.match(r.stdout, /--error-schema/);
  // The CLI prints the build's rendering of the catalog, byte for byte.
  assert.equal(r.stdout, renderExecIndex(index));
});

test('without --help, exec and exec <domain> print their help on stderr and exit 2', async () => {
  const [bare, domain] = await Promise.all([runCli(['exec']), runCli(['exec', 'review'])]);
  assert.equal(bare.code, 2);
  // A usage error: the envelope on stdout, as for every refusal.
  assert.equal(JSON.parse(bare.stdout).error.code, 'usage');
  assert.equal(bare.stderr, renderExecIndex(index));
  assert.equal(domain.code, 2);
  assert.equal(domain.stderr, renderDomainHelp(index.domains.find((d) => d.domain === 'review')!));
});

test('exec <domain> --help lists the actions of the domain with their summaries', async () => {
  const results = await pool(index.domains.map((d) => () => runCli(['exec', d.domain, '--help'])));
  index.domains.forEach((d, i) => {
    const r = results[i]!;
    assert.equal(r.code, 0, d.domain);
    assert.match(r.stdout, new RegExp(`^Usage: agentteam exec ${d.domain} <action>`));
    for (const a of d.actions)
      assert.ok(
        r.stdout.includes(`${a.action}  `) && r.stdout.includes(a.summary),
        `${d.domain} ${a.action}`,
      );
    assert.equal(r.stdout, renderDomainHelp(d));
  });
});

test('exec <domain> <action> --help shows usage and the canonical example', async () => {
  const jobs = index.domains.flatMap((d) => d.actions.map((a) => ({ d, a })));
  const results = await pool(
    jobs.map(
      ({ d, a }) =>
        () =>
          runCli(['exec', d.domain, a.action, '--help']),
    ),
  );
  jobs.forEach(({ d, a }, i) => {
    const r = results[i]!;
    assert.equal(r.code, 0, `${d.domain} ${a.action}`);
    assert.match(r.stdout, new RegExp(`^Usage: agentteam exec ${d.domain} ${a.action} `));
    assert.ok(r.stdout.includes(exampleLine(d.domain, a)), `${d.domain} ${a.action} example`);
    for (const f of a.fields) assert.match(r.stdout, new RegExp(`^  ${f.name} `, 'm'));
    assert.equal(r.stdout, renderActionHelp(d.domain, a));
  });
});

test('--input-schema and --output-schema print standalone schemas equal to the descriptor schemas', async () => {
  const jobs = entries.flatMap(({ descriptor: d }) =>
    (['input', 'output'] as const).map((kind) => ({ d, kind })),
  );
  const results = await pool(
    jobs.map(
      ({ d, kind }) =>
        () =>
          runCli(['exec', d.domain, d.action, `--${kind}-schema`]),
    ),
  );
  jobs.forEach(({ d, kind }, i) => {
    const r = results[i]!;
    assert.equal(r.code, 0, `${d.domain} ${d.action} ${kind}`);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(printed.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(
      printed.$id,
      `https://agentteam.dev/schemas/exec/${d.domain}/${d.action}.${kind}.json`,
    );
    const { $schema: _s, $id: _i, ...rest } = printed;
    assert.deepEqual(rest, JSON.parse(JSON.stringify(d[kind])));
    assert.deepEqual(printed, standaloneSchema(d, kind));
  });
});

test('exec --error-schema prints the shared error envelope schema', async () => {
  const r = await runCli(['exec', '--error-schema']);
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.stdout), errorEnvelopeSchema);
});

test('an unknown domain or action exits 2 naming the closest valid names', async () => {
  const [domain, action, far, path, help, schema] = await Promise.all([
    runCli(['exec', 'tsak', 'create', '{}']),
    runCli(['exec', 'task', 'udpate', '{}']),
    runCli(['exec', 'review', 'zzz']),
    runCli(['exec', '../generated', 'x', '--help']),
    runCli(['exec', 'projetc', '--help']),
    runCli(['exec', 'team', 'lst', '--input-schema']),
  ]);
  for (const r of [path, help, schema]) {
    assert.equal(r.code, 2);
    assert.equal(JSON.parse(r.stdout).error.code, 'usage');
  }
  assert.match(path.stderr, /unknown domain "\.\.\/generated"/);
  assert.match(help.stderr, /did you mean "project"\?/);
  assert.match(schema.stderr, /did you mean "list"\?/);
  assert.equal(domain.code, 2);
  assert.match(
    JSON.parse(domain.stdout).error.message,
    /unknown domain "tsak"; did you mean "task"\?/,
  );
  assert.match(domain.stderr, /unknown domain "tsak"; did you mean "task"\?/);
  assert.equal(action.code, 2);
  assert.match(action.stderr, /unknown action "udpate"; did you mean "update"\?/);
  assert.equal(far.code, 2);
  assert.match(far.stderr, /unknown action "zzz" \(actions: add, list\)/);
});

test('usage errors exit 2: unknown option, too many arguments, unknown command, missing required option', async () => {
  const results = await Promise.all([
    runCli(['exec', 'task', 'create', '--frobnicate']),
    runCli(['exec', 'task', 'create', '{}', 'extra']),
    runCli(['exec', 'task', 'create', '--input-schema', '--output-schema']),
    runCli(['exce']),
    runCli(['run', '--server', 's1', '--', 'true']),
    runCli([]),
  ]);
  for (const r of results) {
    assert.equal(r.code, 2, r.stderr);
    assert.notEqual(r.stderr, '');
  }
  assert.match(results[3]!.stderr, /Did you mean exec\?/);
  // Exec's own grammar and commander's alike: the same error envelope on stdout as a validation error.
  for (const r of results.slice(0, 5))
    assert.equal(JSON.parse(r.stdout).error.code, 'usage', r.stdout);
});
