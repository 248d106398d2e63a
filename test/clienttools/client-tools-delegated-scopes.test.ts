import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN } from '../../devkit/daemon.js';
import { appServerRun, fakeAppServer } from '../../devkit/app-server.js';
import { lookupTool, spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';
import { operatorCall } from '../../devkit/http.js';
import { signIn } from '../../devkit/console.js';

const sh = promisify(execFile);

/**
 * A stand-in for `codex app-server` (the protocol of Codex 0.171, as in
 * test/drivers/codex-app-server.test.ts) that delegates the way Codex
 * reports it, then has each thread call the app's client tool
 * `client__lookup_record`. FAKE_SCENE `first`: the primary spawns thr-C
 * (subAgentActivity, item task-C), thr-C spawns thr-G; an explorer thr-E
 * (thread/started with agent_role explorer); an explorer thr-X announced as
 * Codex 0.171 does (subAgentActivity, no role), its role in `thread/read`
 * (which answers every thread); thr-R announced, then shown to
 * be Codex's review sub-agent; thr-L brought back by resumeAgent (delegated
 * before scopes were saved). `second`: thr-C resumed (resumeAgent) and a new
 * child thr-D. Every answer goes to $FAKE_OUT.
 */
const FAKE = `
const { createInterface } = require('node:readline');
const { writeFileSync } = require('node:fs');
const scene = process.env.FAKE_SCENE;
const out = { answers: [] };
let next = 1000; const waiting = new Map();
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const ask = (method, params) => new Promise((r) => { const id = next++; waiting.set(id, r); send({ id, method, params }); });
const call = async (threadId) => out.answers.push([threadId, await ask('item/tool/call', { threadId, turnId: 't1', callId: 'c' + next, namespace: 'agentteam', tool: 'client__lookup_record', arguments: { record_id: threadId } })]);
const spawned = (parent, child, id) => send({ method: 'item/started', params: { threadId: parent, turnId: 't1', item: { type: 'subAgentActivity', id, kind: 'started', agentThreadId: child, agentPath: '/root/' + child } } });
const resumed = (child, id) => send({ method: 'item/completed', params: { threadId: 'thr-P', turnId: 't1', item: { type: 'collabAgentToolCall', id, tool: 'resumeAgent', status: 'completed', senderThreadId: 'thr-P', receiverThreadIds: [child] } } });
async function play() {
  send({ method: 'turn/started', params: { threadId: 'thr-P', turn: { id: 't1' } } });
  await call('thr-P');
  if (scene === 'first') {
    spawned('thr-P', 'thr-C', 'task-C');
    await call('thr-C');
    spawned('thr-C', 'thr-G', 'task-G');
    await call('thr-G');
    send({ method: 'thread/started', params: { thread: { id: 'thr-E', source: { subAgent: { thread_spawn: { parent_thread_id: 'thr-P', depth: 1, agent_role: 'explorer' } } } } } });
    await call('thr-E');
    spawned('thr-P', 'thr-X', 'task-X');
    await call('thr-X');
    spawned('thr-P', 'thr-R', 'task-R');
    send({ method: 'thread/started', params: { thread: { id: 'thr-R', source: { subAgent: 'review' } } } });
    await call('thr-R');
    resumed('thr-L', 'task-L');
    await call('thr-L');
  } else {
    resumed('thr-C', 'task-C2');
    await call('thr-C');
    spawned('thr-P', 'thr-D', 'task-D');
    await call('thr-D');
  }
  send({ method: 'turn/completed', params: { threadId: 'thr-P', turn: { id: 't1', status: 'completed', error: null } } });
}
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) { waiting.get(m.id)(m.result ?? { error: m.error }); waiting.delete(m.id); return; }
  if (m.method === 'initialize') return send({ id: m.id, result: { userAgent: 'fake/0.171.0' } });
  if (m.method === 'thread/start') { send({ id: m.id, result: { thread: { id: 'thr-P' } } }); return send({ method: 'thread/started', params: { thread: { id: 'thr-P' } } }); }
  if (m.method === 'thread/read') { const id = m.params.threadId; return send({ id: m.id, result: { thread: { id, agentRole: id === 'thr-X' ? 'explorer' : null, source: { subAgent: { thread_spawn: { parent_thread_id: 'thr-P', depth: 1, agent_role: id === 'thr-X' ? 'explorer' : null } } } } } }); }
  if (m.method === 'turn/start') { send({ id: m.id, result: { turn: { id: 't1' } } }); return void play(); }
});
rl.on('close', () => { writeFileSync(process.env.FAKE_OUT, JSON.stringify(out)); process.exit(0); });
`;

type Answer = { contentItems: { text: string }[]; success: boolean };

/** Runs agent fx on the stand-in for one scene while `app` answers every call it gets; returns the stand-in's answers by thread and the calls the app got. */
async function scene(
  d: { home: string },
  dir: string,
  fake: string,
  app: StdioApp,
  name: string,
): Promise<{ answers: Map<string, Answer>; calls: any[] }> {
  const outFile = join(dir, `${name}.json`);
  const calls: any[] = [];
  let done = false;
  const run = sh(process.execPath, [BIN, ...appServerRun('fx', 'work', fake)], {
    env: { ...process.env, AGENTTEAM_HOME: d.home, FAKE_SCENE: name, FAKE_OUT: outFile },
    timeout: 30_000,
  }).finally(() => (done = true));
  const answering = (async () => {
    while (!done) {
      const c = await app.nextCall(200).catch(() => null);
      if (!c) continue;
      calls.push(c);
      await app.answer(c, { text: `answered ${c.params.data.subagent_id ?? 'root'}` });
    }
  })();
  const r = await run;
  await answering;
  assert.equal(r.stderr.includes('failed'), false, r.stderr);
  const out = JSON.parse(readFileSync(outFile, 'utf8')) as { answers: [string, Answer][] };
  return { answers: new Map(out.answers), calls };
}

const text = (a: Answer | undefined) => a?.contentItems.map((c) => c.text).join('') ?? '';

test('saved delegated scopes: saved at delegation, kept across a restart of the app, none for inspection tasks and legacy sessions', async (t) => {
  const { d, dir, fake } = await fakeAppServer(t, FAKE);
  const first = spawnServe(d);
  t.after(() => first.close());
  assert.ok((await first.init([lookupTool()])).result);

  const one = await scene(d, dir, fake, first, 'first');
  await t.test(
    'a child of the primary, and its own child, call a tool their saved scope names',
    () => {
      for (const th of ['thr-P', 'thr-C', 'thr-G'])
        assert.equal(one.answers.get(th)?.success, true, `${th}: ${text(one.answers.get(th))}`);
      assert.match(text(one.answers.get('thr-C')), /answered thr-C/);
      const c = one.calls.find((x) => x.params.data.subagent_id === 'thr-C');
      assert.equal(c?.params.data.task_id, 'task-C', 'the task is the delegation item');
      const root = one.calls.find((x) => x.params.data.subagent_id === null);
      assert.equal(root?.params.data.task_id, null);
      assert.equal(one.calls.length, 3, 'only the allowed calls reached the app');
    },
  );
  await t.test('an inspection task (explorer, review) and a legacy session get none', () => {
    for (const th of ['thr-E', 'thr-X', 'thr-R', 'thr-L']) {
      assert.equal(one.answers.get(th)?.success, false, th);
      assert.match(text(one.answers.get(th)), /not_in_scope/, th);
    }
  });
  await t.test('the operator reads the saved scopes (route and CLI)', async () => {
    const res = await operatorCall(d, 'GET', '/api/v1/client-tools/scopes');
    assert.equal(res.status, 200, res.body);
    const sessions = JSON.parse(res.body).data.sessions as any[];
    const by = new Map(sessions.map((s) => [s.session, s]));
    assert.deepEqual([...by.keys()].sort(), ['thr-C', 'thr-E', 'thr-G', 'thr-L', 'thr-R', 'thr-X']);
    assert.deepEqual(
      ['thr-C', 'thr-G', 'thr-E', 'thr-X', 'thr-R', 'thr-L'].map((s) => by.get(s).kind),
      ['scoped', 'scoped', 'inspection', 'inspection', 'inspection', 'legacy'],
    );
    assert.deepEqual(
      by.get('thr-C').tools.map((x: any) => [x.name, x.current]),
      [['client__lookup_record', true]],
    );
    assert.equal(by.get('thr-G').parent, 'thr-C');
    assert.deepEqual(by.get('thr-R').tools, []);
    const one2 = await operatorCall(d, 'GET', '/api/v1/client-tools/scopes?session=thr-G');
    assert.deepEqual(
      JSON.parse(one2.body).data.sessions.map((s: any) => s.session),
      ['thr-G'],
    );
    const human = await sh(process.execPath, [BIN, 'tools', 'scopes'], {
      env: { ...process.env, AGENTTEAM_HOME: d.home },
    });
    assert.match(human.stdout, /^fx thr-C scoped parent thr-P task task-C: 1 tools$/m);
    assert.match(human.stdout, /^ {2}client__lookup_record [0-9a-f]{12} current$/m);
    const page = await (await signIn(d)).get('/console/client-tools');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h2>Delegated scopes <span class="mute">\(6\)<\/span>/);
    const row = /<tr data-scope="thr-C" data-scope-tool="client__lookup_record">(.*?)<\/tr>/s.exec(
      page.body,
    )?.[1];
    assert.match(row ?? '', /scoped.*callable/s);
    assert.match(page.body, /<tr data-scope="thr-E" data-scope-tool="">.*?inspection.*?none/s);
  });

  // The app restarts with the tool's description changed: a new fingerprint.
  assert.equal(await first.close(), 0);
  const second = spawnServe(d);
  t.after(() => second.close());
  assert.ok(
    (await second.init([lookupTool('client__lookup_record', { description: 'Changed.' })])).result,
  );
  const two = await scene(d, dir, fake, second, 'second');
  await t.test(
    'resumed, the child is refused the changed tool; a new child gets it; the primary uses the current registry',
    async () => {
      assert.equal(two.answers.get('thr-C')?.success, false);
      assert.match(text(two.answers.get('thr-C')), /^not_in_scope: |"code":"not_in_scope"/);
      assert.equal(two.answers.get('thr-D')?.success, true, text(two.answers.get('thr-D')));
      assert.equal(two.answers.get('thr-P')?.success, true);
      assert.equal(two.calls.length, 2);
      const res = await operatorCall(d, 'GET', '/api/v1/client-tools/scopes?session=thr-C');
      const [c] = JSON.parse(res.body).data.sessions;
      assert.equal(c.task, 'task-C', 'the saved session was kept, not saved again');
      assert.deepEqual(
        c.tools.map((x: any) => x.current),
        [false],
      );
    },
  );
});
