import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { call, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime, type Runtime } from '../../devkit/daemon.js';

test.after(() => closeHttp());

interface Walk {
  ids: string[];
  pages: number;
}

async function walk(
  rt: Runtime,
  limit: number,
  filter: Record<string, unknown>,
  between: () => Promise<void>,
): Promise<Walk> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const r = await call(rt, 'task', 'list', { ...filter, limit, ...(cursor ? { cursor } : {}) });
    assert.equal(r.status, 200, r.text);
    pages++;
    ids.push(...r.json.data.tasks.map((x: { id: string }) => x.id));
    assert.equal(r.json.data.hasMore, 'nextCursor' in r.json.data);
    if (!r.json.data.hasMore) return { ids, pages };
    cursor = r.json.data.nextCursor;
    await between();
  }
}

test('250 tasks walked in pages of 20 and 100 while tasks are updated: no duplicates, no gaps', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const all: string[] = [];
  for (let i = 0; i < 250; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: 25 }, (_, j) =>
        call(rt, 'task', 'create', { title: `t${i + j}`, assignee: (i + j) % 2 ? 'odd' : 'even' }),
      ),
    );
    all.push(...batch.map((r) => r.json.data.task.id as string));
  }
  for (const limit of [20, 100]) {
    // Between pages, update tasks both already seen and not yet seen. An
    // update moves a task to the front (newest updatedAt), behind the walk's
    // position: it is never returned twice, and every task not touched during
    // the walk is returned exactly once. Touched tasks were seen before or are
    // newer than the walk's snapshot position; the test checks both sides.
    const touched = new Set<string>();
    let n = 0;
    const { ids, pages } = await walk(rt, limit, {}, async () => {
      const victims = [all[(n * 37) % 250]!, all[(n * 53 + 11) % 250]!];
      n++;
      await Promise.all(
        victims.map((id) => call(rt, 'task', 'update', { id, status: 'in_progress' })),
      );
      for (const v of victims) touched.add(v);
    });
    assert.equal(new Set(ids).size, ids.length, `duplicates with limit ${limit}`);
    for (const id of all)
      if (!touched.has(id)) assert.ok(ids.includes(id), `gap: ${id} missing with limit ${limit}`);
    assert.ok(pages > 1);
    assert.ok(ids.every((id) => all.includes(id)));
    assert.ok(
      ids.length + touched.size >= 250,
      'every task is either returned or was moved behind the walk',
    );
    // Without concurrent writes the walk is exact.
    const quiet = await walk(rt, limit, {}, async () => {});
    assert.deepEqual([...quiet.ids].sort(), [...all].sort());
    assert.equal(quiet.pages, Math.ceil(250 / limit));
  }
  const odd = await walk(rt, 20, { assignee: 'odd' }, async () => {});
  assert.equal(odd.ids.length, 125);
});

test('tampered, filter-mismatched, foreign and malformed cursors are validation_failed at /cursor, never page one', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d);
  t.after(() => rt.close());
  const other = await startRuntime(d, { server: 's2', agent: 'a1' });
  t.after(() => other.close());
  for (let i = 0; i < 5; i++) await call(rt, 'task', 'create', { title: `t${i}`, status: 'todo' });
  const p1 = await call(rt, 'task', 'list', { status: 'todo', limit: 2 });
  const cursor: string = p1.json.data.nextCursor;
  const [body = '', mac = ''] = cursor.split('.');
  const decoded = JSON.parse(Buffer.from(body, 'base64url').toString());
  const edited = Buffer.from(
    JSON.stringify({ ...decoded, k: [decoded.k[0] + 1, decoded.k[1]] }),
  ).toString('base64url');
  const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  const cases: [string, Runtime, string, Record<string, unknown>][] = [
    ['edited keyset, old signature', rt, 'task', { status: 'todo', cursor: `${edited}.${mac}` }],
    ['flipped signature', rt, 'task', { status: 'todo', cursor: `${body}.${flip(mac)}` }],
    ['other filter', rt, 'task', { status: 'done', cursor }],
    ['filter dropped', rt, 'task', { cursor }],
    ['other collection', rt, 'project', { cursor }],
    ['other server', other, 'task', { status: 'todo', cursor }],
    ['not base64', rt, 'task', { status: 'todo', cursor: '%%%' }],
    ['no signature', rt, 'task', { status: 'todo', cursor: body }],
  ];
  for (const [name, who, domain, input] of cases) {
    const r = await call(who, domain, 'list', input);
    assert.equal(r.status, 400, `${name}: ${r.text}`);
    assert.equal(r.json.error.code, 'validation_failed', name);
    assert.deepEqual(
      r.json.error.details.map((x: { path: string }) => x.path),
      ['/cursor'],
      name,
    );
  }
  const ok = await call(rt, 'task', 'list', { status: 'todo', limit: 2, cursor });
  assert.equal(ok.status, 200);
  assert.equal(ok.json.data.tasks.length, 2);
});
