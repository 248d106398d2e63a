import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../devkit/cli.js';
import { call, closeHttp } from '../../devkit/http.js';
import { cli, startDaemon, startRuntime, type Runtime } from '../../devkit/daemon.js';
import { closedPort, startUpstream } from '../../devkit/extension-upstream.js';

test.after(() => closeHttp());

const EXAMPLE = readFileSync(join(ROOT, 'examples/extensions/github.json'), 'utf8');

async function catalogOf(
  rt: Runtime,
): Promise<{ domains: Record<string, string>; actions: { domain: string; action: string }[] }> {
  const res = await fetch(`${rt.base}/catalog`, {
    headers: { authorization: `Bearer ${rt.token()}` },
  });
  return ((await res.json()) as { data: never }).data;
}

test('an extension installed after a runtime started is not in its catalog; a new runtime sees it and calls reach the upstream with digest and catalog version', async (t) => {
  const up = await startUpstream();
  t.after(() => up.close());
  const d = await startDaemon();
  t.after(() => d.close());
  const before = await startRuntime(d);
  t.after(() => before.close());
  const file = join(d.home, 'github.json');
  const text = EXAMPLE.replace('http://127.0.0.1:8787', up.url);
  writeFileSync(file, text);
  const installed = await cli(d.home, ['extension', 'install', file]);
  assert.equal(installed.code, 0, installed.stderr);
  const ext = JSON.parse(installed.stdout).data.extension;
  const digest = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  assert.deepEqual(
    [ext.name, ext.digest, ext.actions],
    ['github', digest, ['watch', 'unwatch', 'list']],
  );

  assert.ok(!('github' in (await catalogOf(before)).domains));
  const old = await call(before, 'github', 'watch', {
    repo: 'acme/api',
    number: 1,
    target: 'channel:x',
  });
  assert.equal(old.json.error.code, 'not_found');

  const after = await startRuntime(d);
  t.after(() => after.close());
  const cat = await catalogOf(after);
  assert.equal(cat.domains.github, 'GitHub pull-request watches (provider extension).');
  assert.deepEqual(
    cat.actions.filter((a) => a.domain === 'github').map((a) => a.action),
    ['watch', 'unwatch', 'list'],
  );

  const index = await cli(d.home, ['exec', '--help'], { env: after.env });
  assert.match(
    index.stdout,
    /Extensions installed for this runtime[^\n]*\n {2}github {2}GitHub pull-request watches \(provider extension\)\. \(watch, unwatch, list\)\n$/,
  );
  assert.ok(
    !(await cli(d.home, ['exec', '--help'], { env: before.env })).stdout.includes(
      'Extensions installed',
    ),
  );
  const help = await cli(d.home, ['exec', 'github', '--help'], { env: after.env });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /watch\s+Watch a pull request/);
  const actionHelp = await cli(d.home, ['exec', 'github', 'watch', '--help'], { env: after.env });
  assert.match(actionHelp.stdout, /agentteam exec github watch '\{"repo":"acme\/api"/);
  const schema = await cli(d.home, ['exec', 'github', 'watch', '--input-schema'], {
    env: after.env,
  });
  assert.deepEqual(JSON.parse(schema.stdout).required, ['repo', 'number', 'target']);
  // An operator at a shell (no runtime): help comes from the running daemon's installed definitions.
  const operator = { env: { AGENTTEAM_EXEC_BASE_URL: '', AGENTTEAM_EXEC_TOKEN_FILE: '' } };
  const noRuntime = await cli(d.home, ['exec', 'github', '--help'], operator);
  assert.equal(noRuntime.code, 0, noRuntime.stderr);
  assert.equal(noRuntime.stdout, help.stdout);
  const operatorIndex = await cli(d.home, ['exec', '--help'], operator);
  assert.match(
    operatorIndex.stdout,
    /Extensions installed in the daemon[^\n]*\n {2}github {2}GitHub pull-request watches \(provider extension\)\. \(watch, unwatch, list\)\n$/,
  );
  assert.equal(
    (await cli(d.home, ['exec', 'github', 'watch', '--help'], operator)).stdout,
    actionHelp.stdout,
  );
  // Calling it still needs a runtime.
  const outside = await cli(d.home, ['exec', 'github', 'list', '{}'], operator);
  assert.equal(outside.code, 3);
  assert.match(outside.stderr, /inside a runtime/);

  const watched = await cli(
    d.home,
    [
      'exec',
      'github',
      'watch',
      JSON.stringify({ repo: 'acme/api', number: 42, target: 'channel:reviews' }),
    ],
    { env: after.env },
  );
  assert.equal(watched.code, 0, watched.stderr + watched.stdout);
  assert.equal(JSON.parse(watched.stdout).data.watch.number, 42);
  const last = up.received.at(-1)!;
  assert.equal(last.path, '/runtime/ext');
  assert.deepEqual(last.body, {
    extension: 'github',
    action: 'watch',
    input: { repo: 'acme/api', number: 42, target: 'channel:reviews' },
  });
  assert.equal(last.headers['agentteam-extension-digest'], digest);
  const version = JSON.parse((await cli(d.home, ['extension', 'list'])).stdout).data.catalogVersion;
  assert.equal(last.headers['agentteam-catalog-version'], version);
  assert.ok(
    !JSON.stringify(last.headers).includes(after.token()),
    'the runtime token never reaches the provider',
  );

  const listed = await call(after, 'github', 'list', {});
  assert.equal(listed.json.data.watches.length, 1);
  const invalid = await call(after, 'github', 'watch', { repo: 'acme/api' });
  assert.equal(invalid.json.error.code, 'validation_failed');
  assert.equal(up.received.length, 2, 'an invalid input never reaches the upstream');

  // Re-installing changes the digest and catalog version for new runtimes only.
  writeFileSync(file, text.replace('Watch a pull request', 'Watch one pull request'));
  assert.equal((await cli(d.home, ['extension', 'install', file])).code, 0);
  await call(after, 'github', 'list', {});
  assert.equal(
    up.received.at(-1)!.headers['agentteam-extension-digest'],
    digest,
    'a pinned runtime keeps its digest',
  );
  const newer = await startRuntime(d);
  t.after(() => newer.close());
  await call(newer, 'github', 'list', {});
  assert.notEqual(up.received.at(-1)!.headers['agentteam-extension-digest'], digest);
  assert.notEqual(up.received.at(-1)!.headers['agentteam-catalog-version'], version);

  const removed = await cli(d.home, ['extension', 'remove', 'github']);
  assert.equal(removed.code, 0, removed.stderr);
  const gone = await startRuntime(d);
  t.after(() => gone.close());
  assert.ok(!('github' in (await catalogOf(gone)).domains));
  assert.equal(
    (await call(after, 'github', 'list', {})).status,
    200,
    'removal does not change a pinned catalog',
  );
});

test('provider authorization, provider API and unreachable upstream failures are three distinct codes', async (t) => {
  const up = await startUpstream();
  t.after(() => up.close());
  const d = await startDaemon();
  t.after(() => d.close());
  const file = join(d.home, 'github.json');
  writeFileSync(file, EXAMPLE.replace('http://127.0.0.1:8787', up.url));
  assert.equal((await cli(d.home, ['extension', 'install', file])).code, 0);
  const gitea = join(d.home, 'gitea.json');
  writeFileSync(
    gitea,
    EXAMPLE.replace('"github"', '"gitea"').replace(
      'http://127.0.0.1:8787',
      `http://127.0.0.1:${await closedPort()}`,
    ),
  );
  assert.equal((await cli(d.home, ['extension', 'install', gitea])).code, 0);
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const watch = (repo: string) =>
    call(rt, 'github', 'watch', { repo, number: 1, target: 'channel:x' });
  const cases: [Promise<{ status: number; json: any }>, string, number][] = [
    [watch('acme/revoked'), 'provider_unauthorized', 502],
    [watch('acme/forbidden'), 'provider_unauthorized', 502],
    [watch('acme/broken'), 'upstream_error', 502],
    [watch('acme/garbage'), 'upstream_error', 502],
    [call(rt, 'gitea', 'list', {}), 'upstream_unreachable', 504],
  ];
  for (const [p, code, status] of cases) {
    const r = await p;
    assert.deepEqual([r.json.error.code, r.status], [code, status], JSON.stringify(r.json));
  }
  const viaCli = await cli(d.home, ['exec', 'gitea', 'list', '{}'], { env: rt.env });
  const unreachable = JSON.parse(viaCli.stdout).error;
  assert.deepEqual([viaCli.code, unreachable.code], [1, 'upstream_unreachable']);
  // The error names the upstream and what to check.
  const closed = JSON.parse(readFileSync(gitea, 'utf8')).upstream as string;
  assert.ok(unreachable.message.includes(closed), unreachable.message);
  assert.match(
    unreachable.hint,
    /Check that the gitea provider is running and listening at http:\/\/127\.0\.0\.1:\d+/,
  );
});

test('install refuses bad definitions with the field named, and never shadows a built-in domain', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const doc = JSON.parse(EXAMPLE);
  const cases: [unknown, string][] = [
    [{ ...doc, name: 'task' }, '/name'],
    [{ ...doc, name: 'Git Hub' }, '/name'],
    [{ ...doc, upstream: 'http://user:pw@host:1' }, '/upstream'],
    [{ ...doc, upstream: 'ftp://host' }, '/upstream'],
    [{ ...doc, actions: [] }, '/actions'],
    [{ ...doc, actions: [doc.actions[0], doc.actions[0]] }, '/actions/1/action'],
    [{ ...doc, actions: [{ ...doc.actions[0], risk: 'maybe' }] }, '/actions/0/risk'],
    [
      {
        ...doc,
        actions: [
          { ...doc.actions[0], input: { type: 'object', properties: { a: { type: 'nope' } } } },
        ],
      },
      '/actions/0/input',
    ],
    [{ ...doc, secret: 1 }, '/secret'],
  ];
  for (const [def, path] of cases) {
    const file = join(d.home, 'bad.json');
    writeFileSync(file, JSON.stringify(def));
    const r = await cli(d.home, ['extension', 'install', file]);
    assert.equal(r.code, 1, JSON.stringify(def));
    const err = JSON.parse(r.stdout).error;
    assert.deepEqual(
      [err.code, err.details[0].path],
      ['validation_failed', path],
      JSON.stringify(def),
    );
  }
  assert.equal(
    JSON.parse((await cli(d.home, ['extension', 'list'])).stdout).data.extensions.length,
    0,
  );
  assert.equal((await cli(d.home, ['extension', 'remove', 'github'])).code, 1);
  assert.equal((await cli(d.home, ['extension', 'install', join(d.home, 'missing.json')])).code, 2);
});
