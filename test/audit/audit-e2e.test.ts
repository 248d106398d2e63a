import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startAudited, rowsAtLeast } from '../../devkit/audit.js';
import { freshDatabase } from '../../devkit/pg.js';
import { cli } from '../../devkit/daemon.js';

/**
 * The audit trail end to end on a real daemon: one call on every transport
 * (Exec action, extension forward, MCP built-in, declared command tool,
 * client tool over HTTP/SSE and over stdio, kb upstream) is read back with
 * `agentteam audit`, filtered and paged, on the embedded SQLite store and on
 * a real PostgreSQL.
 */
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

const BACKENDS = [
  { name: 'sqlite', store: async () => undefined },
  { name: 'postgres', store: async () => freshDatabase() },
];

for (const backend of BACKENDS) {
  test(`audit (${backend.name}): a call on every transport is read back, filtered and paged`, async (t) => {
    const store = await backend.store();
    const a = await startAudited(t, store ? { store } : {});

    assert.equal(
      (await a.exec('task', 'create', { title: 'audited' }, { traceparent: PARENT })).status,
      200,
    );
    assert.equal((await a.exec('nope', 'none', {})).status, 404);
    assert.equal((await a.exec('task', 'create', { title: 7 })).status, 400);
    const watch = await a.exec('github', 'watch', {
      repo: 'acme/api',
      number: 1,
      target: 'channel:x',
    });
    assert.equal(watch.status, 200, JSON.stringify(watch.json));
    const sent = await a.tool(
      'message_send',
      { target: 'channel:general', content: 'hi' },
      { traceparent: PARENT },
    );
    assert.equal(sent.result.isError, false, JSON.stringify(sent));
    assert.equal(
      (await a.tool('say_hello', {}, { 'agentteam/threadId': 'th-1' })).result.isError,
      false,
    );
    assert.equal((await a.tool('kb_search', { query: 'deploy' })).result.isError, false);
    assert.equal((await a.clientHttp({ text: 'x' })).result.isError, false);
    assert.equal((await a.clientStdio({ record_id: 'r1' })).result.isError, false);
    const failed = await a.clientHttp(
      { text: 'y' },
      { ok: false, error: { code: 'file_locked', message: 'locked' } },
    );
    assert.equal(failed.result.isError, true);
    const unknown = await a.tool('no_such_tool', {});
    assert.ok(unknown.error, JSON.stringify(unknown));

    const rows = await rowsAtLeast(a, 11);
    assert.equal(rows.length, 11, JSON.stringify(rows.map((r: any) => r.tool)));
    const by = (tool: string) => rows.filter((r: any) => r.tool === tool);
    const one = (tool: string) => {
      const found = by(tool);
      assert.equal(found.length >= 1, true, `no row for ${tool}`);
      return found[0];
    };
    const shape = (r: any) => [r.via, r.transport, r.outcome];
    assert.deepEqual(by('task/create').map(shape).sort(), [
      ['exec', 'exec', 'ok'],
      ['exec', 'exec', 'validation_failed'],
    ]);
    assert.deepEqual(shape(one('nope/none')), ['exec', 'exec', 'not_found']);
    assert.deepEqual(shape(one('github/watch')), ['exec', 'extension', 'ok']);
    assert.deepEqual(shape(one('message_send')), ['mcp', 'mcp', 'ok']);
    assert.deepEqual(shape(one('say_hello')), ['mcp', 'declared', 'ok']);
    assert.deepEqual(shape(one('kb_search')), ['mcp', 'kb_upstream', 'ok']);
    assert.deepEqual(by('editor_echo').map(shape).sort(), [
      ['mcp', 'client_http', 'ok'],
      ['mcp', 'client_http', 'upstream_error'],
    ]);
    assert.deepEqual(shape(one('client__lookup_record')), ['mcp', 'client_stdio', 'ok']);
    assert.deepEqual(shape(one('no_such_tool')), ['mcp', 'mcp', 'not_found']);

    const created = by('task/create').find((r: any) => r.outcome === 'ok');
    assert.equal(created.traceId, TRACE, 'traceparent header');
    assert.equal(one('message_send').traceId, TRACE, 'params._meta.traceparent');
    assert.equal(one('say_hello').threadId, 'th-1');
    assert.equal(one('message_send').threadId, null);
    assert.equal(one('say_hello').traceId, null);
    for (const r of rows) {
      assert.equal(r.serverId, 'local');
      assert.equal(r.agentId, 'a1');
      assert.match(r.authorizationId, /\S/);
      assert.match(r.generationId, /\S/);
      assert.equal(r.runtime, 'generic');
      assert.equal(typeof r.durationMs, 'number');
      // An unknown action is refused before its body is read: nothing was read.
      if (r.tool === 'nope/none') assert.equal(r.requestBytes, 0, `${r.tool} requestBytes`);
      else assert.ok(r.requestBytes > 0, `${r.tool} requestBytes`);
      assert.ok(r.resultBytes > 0, `${r.tool} resultBytes`);
      assert.equal('args' in r || 'result' in r, false, 'payloads are off by default');
      assert.equal(JSON.stringify(r).includes(a.rt.token()), false, 'never the token');
    }
    assert.equal(created.requestBytes, Buffer.byteLength(JSON.stringify({ title: 'audited' })));

    await t.test('filters: --tool, --outcome, --agent, --since', async () => {
      assert.deepEqual(
        (await a.audit(['--tool', 'github/watch'])).entries.map((r: any) => r.tool),
        ['github/watch'],
      );
      assert.deepEqual(
        (await a.audit(['--outcome', 'not_found'])).entries.map((r: any) => r.tool).sort(),
        ['no_such_tool', 'nope/none'],
      );
      assert.equal((await a.audit(['--agent', 'a1', '--limit', '100'])).entries.length, 11);
      assert.equal((await a.audit(['--agent', 'someone-else'])).entries.length, 0);
      assert.equal((await a.audit(['--since', '1h', '--limit', '100'])).entries.length, 11);
    });

    await t.test(
      'paging: pages of 3 with opaque cursors give every row once, newest first',
      async () => {
        const seen: number[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await a.audit(['--limit', '3', ...(cursor ? ['--cursor', cursor] : [])]);
          assert.ok(page.entries.length <= 3);
          seen.push(...page.entries.map((r: any) => r.seq));
          cursor = page.nextCursor;
          assert.equal(page.hasMore, cursor !== undefined);
          pages++;
        } while (cursor);
        assert.equal(pages, 4);
        assert.deepEqual(
          seen,
          rows.map((r: any) => r.seq),
        );
        assert.deepEqual(
          [...seen].sort((x, y) => y - x),
          seen,
          'newest first',
        );
        // A cursor issued for one filter is refused under another, never page one.
        const first = await a.audit(['--limit', '3']);
        const r = await cli(a.d.home, [
          'audit',
          '--limit',
          '3',
          '--tool',
          'task/create',
          '--cursor',
          first.nextCursor,
        ]);
        assert.equal(r.code, 1);
        assert.match(r.stderr, /cursor/);
      },
    );

    await t.test('--summary: calls, errors and p50/p95 per tool and per agent', async () => {
      const s = await a.audit(['--summary', '--since', '1h']);
      const task = s.byTool.find((x: any) => x.key === 'task/create');
      assert.deepEqual([task.calls, task.errors], [2, 1]);
      assert.ok(task.p50Ms >= 0 && task.p95Ms >= task.p50Ms);
      assert.deepEqual(
        s.byAgent.map((x: any) => [x.key, x.calls, x.errors]),
        [['a1', 11, 4]],
      );
      const text = await cli(a.d.home, ['audit', '--summary']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^tool\s+calls\s+errors\s+p50 ms\s+p95 ms$/m);
    });

    await t.test('--follow prints new calls as they are written', async () => {
      const { spawn } = await import('node:child_process');
      const { BIN } = await import('../../devkit/daemon.js');
      const child = spawn(
        process.execPath,
        [BIN, 'audit', '--follow', '--json', '--tool', 'task/get', '--limit', '1'],
        { env: { ...process.env, AGENTTEAM_HOME: a.d.home }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      t.after(() => child.kill('SIGKILL'));
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      await new Promise((r) => setTimeout(r, 1500));
      await a.exec('task', 'get', { id: created.id ?? 'task_nope' });
      const until = Date.now() + 8000;
      while (!out.includes('task/get') && Date.now() < until)
        await new Promise((r) => setTimeout(r, 100));
      const lines = out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        lines.map((l: any) => l.tool),
        ['task/get'],
      );
    });

    await t.test('bad input to the audit command is refused with a clear message', async () => {
      for (const [args, pattern] of [
        [['--since', '5 minutes'], /--since/],
        [['--outcome', 'exploded'], /outcome/],
        [['--agent', '../x'], /agent/],
      ] as const) {
        const r = await cli(a.d.home, ['audit', ...args]);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, pattern);
      }
    });
  });
}
