import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAgent } from '../../devkit/client-tools.js';
import { operatorCall } from '../../devkit/http.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * tools/ is read at start and whenever it changes, and anyone who can write
 * there can leave something that is not a file: a named pipe (opening it to
 * read waits for a writer), a link to /dev/zero (reading it never ends), a
 * huge file. Each must be reported by name like any bad declaration while
 * the rest load, without the daemon ever waiting on it.
 */
const NODE = process.execPath;
const none = { type: 'object', properties: {}, additionalProperties: false };
const decl = (name: string) => ({
  name,
  description: `the ${name} tool`,
  needs: none,
  annotations: { readOnlyHint: true },
  transport: { type: 'command', argv: [NODE, '-e', 'process.stdout.write("hi")'] },
});
const LIMIT = 256 * 1024;

function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer!: NodeJS.Timeout;
  const late = new Promise<T>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Makes a FIFO, or says why the test cannot (Node itself cannot make one). */
function mkfifo(t: TestContext, path: string): boolean {
  const r = spawnSync('mkfifo', [path]);
  if (r.error || r.status !== 0) {
    t.skip(`mkfifo is not available (${r.error?.message ?? r.stderr.toString()})`);
    return false;
  }
  // A reader the old code left waiting on the pipe is released, so its daemon can still be stopped.
  t.after(() => {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // nobody waits
    }
  });
  return true;
}

interface Report {
  tools: { name: string }[];
  declarations: { problems: { file: string; message: string }[] };
}
async function report(d: { readonly home: string; readonly url: string }): Promise<Report> {
  const r = await within(3_000, operatorCall(d, 'GET', '/api/v1/tools'), 'GET /api/v1/tools');
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { data: Report }).data;
}
const problemOf = (r: Report, name: string) =>
  r.declarations.problems.find((p) => p.file.endsWith(`/${name}`))?.message;
const names = (r: Report) => r.tools.map((x) => x.name);

test('a named pipe in tools/ at start: the daemon starts at once, reports it and loads the rest', async (t) => {
  const started = Date.now();
  const h = await prepareHome(t, { tools: { 'good.json': decl('good') }, start: false });
  if (!mkfifo(t, join(h.home, 'tools', 'pipe.json'))) return;
  const ready = await within(10_000, h.cli(['daemon', 'start']), 'daemon start');
  assert.equal(ready.code, 0, ready.stderr);
  t.after(() => h.cli(['daemon', 'stop']));
  assert.ok(Date.now() - started < 8_000, `started in ${Date.now() - started} ms`);
  const r = await report({ home: h.home, url: (JSON.parse(ready.stdout) as { url: string }).url });
  assert.match(problemOf(r, 'pipe.json') ?? '', /not a regular file/);
  assert.ok(names(r).includes('good'));
});

test('a named pipe added while running: calls stay answered and the pipe is reported', async (t) => {
  const h = await prepareHome(t, { tools: { 'good.json': decl('good') } });
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  if (!mkfifo(t, join(h.home, 'tools', 'pipe.json'))) return;
  // The watcher reloads about 250 ms after the event; every call in the next 2 s must be answered promptly.
  const until = Date.now() + 2_000;
  while (Date.now() < until) {
    const res = await within(
      2_000,
      agent.client.callTool({ name: 'good', arguments: {} }),
      'tools/call good',
    );
    assert.notEqual(res.isError, true);
  }
  const r = await report(h);
  assert.match(problemOf(r, 'pipe.json') ?? '', /not a regular file/);
  assert.ok(names(r).includes('good'));
});

test('a link to /dev/zero is refused as a link, never read', async (t) => {
  const h = await prepareHome(t, {
    tools: { 'good.json': decl('good') },
    setup: (home) => symlinkSync('/dev/zero', join(home, 'tools', 'zero.json')),
  });
  const r = await report(h);
  assert.match(problemOf(r, 'zero.json') ?? '', /symbolic link/);
  assert.ok(names(r).includes('good'));
  const checked = await within(10_000, h.cli(['tools', 'check']), 'tools check');
  assert.match(checked.stdout + checked.stderr, /zero\.json.*symbolic link/);
});

test('a declaration of exactly the size limit loads; one byte more is refused naming the limit', async (t) => {
  const padded = (name: string, size: number) => {
    const text = JSON.stringify(decl(name));
    return `${text.slice(0, -1)}${' '.repeat(size - Buffer.byteLength(text))}}`;
  };
  const h = await prepareHome(t, {
    setup: (home) => {
      writeFileSync(join(home, 'tools', 'limit.json'), padded('limit', LIMIT));
      writeFileSync(join(home, 'tools', 'over.json'), padded('over', LIMIT + 1));
    },
    tools: {},
  });
  const r = await report(h);
  assert.ok(names(r).includes('limit'), JSON.stringify(r.declarations));
  assert.ok(!names(r).includes('over'));
  assert.match(problemOf(r, 'over.json') ?? '', new RegExp(`larger than ${LIMIT} bytes`));
});
