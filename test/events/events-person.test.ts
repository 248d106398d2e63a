import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cliEnv,
  cliSpawn,
  startDaemon,
  startRuntime,
  type Runtime,
  type SpawnedDaemon,
} from '../../devkit/daemon.js';
import { call, closeHttp } from '../../devkit/http.js';
import { watchEvents, type EventFrame } from '../../devkit/tools.js';
import { answerRuntime, post, waitTurn } from '../../devkit/turns.js';

/**
 * The event stream for apps and `agentteam watch`, through the public
 * surface: a real daemon, a runtime's Exec calls, `agentteam message post`
 * and `approval decide`, the stream read with the operator client and
 * `agentteam watch` spawned as a child. A profile header value (in the
 * daemon's secret set) is planted in every text, with terminal escapes.
 */

const SECRET = 'hdrsecret_watch_5c1e7a90b3';
const LABEL = '[X-Watch-Auth]';
/** Clears the screen, a bidi override, a C1 CSI, a newline: none may act on a terminal. */
const NASTY = '\u001b[2J\u202egnp.exe\u009b31m\nforged line';

let d: SpawnedDaemon;
let rt: Runtime;
let events: Awaited<ReturnType<typeof watchEvents>>;
let watch: ChildProcess;
let watched = '';
const pids = new Set<number>();

const KINDS = [
  'message.created',
  'approval.requested',
  'approval.decided',
  'task.changed',
  'turn.started',
  'turn.finished',
];

before(async () => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-events-'));
  const work = join(home, 'work');
  mkdirSync(work);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'a1',
          runtime: 'generic',
          filesystem: { allowedPaths: [work] },
          launch: { command: answerRuntime() },
        },
        {
          id: 'broken',
          runtime: 'generic',
          filesystem: { allowedPaths: [work] },
          launch: { command: answerRuntime(['exit', '4']) },
        },
        { id: 'vault', runtime: 'claude', headers: { 'X-Watch-Auth': SECRET } },
      ],
    }),
  );
  d = await startDaemon({ home });
  events = await watchEvents({ home: d.home, url: d.url } as never, KINDS);
  watch = cliSpawn(['watch'], { ...process.env, AGENTTEAM_HOME: d.home }, (p) => pids.add(p));
  watch.stdout!.setEncoding('utf8');
  watch.stdout!.on('data', (s: string) => (watched += s));
  await said(watch, 'following');
  rt = await startRuntime(d, { server: 'local', agent: 'planner' });
});

after(async () => {
  events?.close();
  await rt?.close();
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await d?.close();
  closeHttp();
});

/** Resolves once `child` has written `text` on stderr (watch says when it is connected). */
function said(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`watch never said "${text}": ${err}`)), 20_000);
    const on = (s: Buffer) => {
      err += s.toString();
      if (err.includes(text)) {
        clearTimeout(timer);
        child.stderr!.off('data', on);
        resolve();
      }
    };
    child.stderr!.on('data', on);
  });
}

/** Waits until `agentteam watch` has printed a line matching `re`. */
async function watchedLine(re: RegExp, ms = 10_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const line = watched.split('\n').find((l) => re.test(l));
    if (line) return line;
    if (Date.now() > until) assert.fail(`watch printed no line like ${re}:\n${watched}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const about = (id: string) => (f: EventFrame) => f.data.id === id || f.data.turnId === id;

test("a person's message: message.created, the turn's events and the agent's reply, each once, in order, masked", async () => {
  const text = `deploy with ${SECRET} ${NASTY}`;
  const posted = await post(d, 'dm:a1', text);
  const turnId = posted.turns[0]!.turnId;
  const turn = await waitTurn(d, turnId);
  assert.equal(turn.state, 'succeeded');
  const created = await events.next(
    (f) => f.type === 'message.created' && f.data.id === posted.message.id,
  );
  const finished = await events.next((f) => f.type === 'turn.finished' && f.data.turnId === turnId);
  const reply = await events.next(
    (f) =>
      f.type === 'message.created' && f.data.author !== 'human:ada' && f.data.target === 'dm:a1',
  );
  const started = events.frames.find((f) => f.type === 'turn.started' && f.data.turnId === turnId)!;
  assert.ok(created.seq < started.seq && started.seq < reply.seq && reply.seq < finished.seq);
  assert.equal(events.frames.filter(about(posted.message.id)).length, 1);
  assert.equal(events.frames.filter((f) => f.data.turnId === turnId).length, 2);
  assert.deepEqual(
    [created.data.target, created.data.author, created.data.length],
    ['dm:a1', 'human:ada', [...text].length],
  );
  assert.ok(String(created.data.excerpt).includes(LABEL), String(created.data.excerpt));
  assert.ok(!JSON.stringify(events.frames).includes(SECRET), 'the stream never carries the secret');

  const line = await watchedLine(/message\.created {2}human:ada {2}dm:a1: deploy/);
  assert.match(line, /^\d\d:\d\d:\d\d {2}/);
  assert.ok(line.includes(LABEL) && line.includes('\\x1b[2J') && line.includes('\\u202e'), line);
  assert.ok(line.includes('\\u009b31m') && line.includes('\\nforged line'), line);
  await watchedLine(new RegExp(`turn\\.finished  a1  ${turnId} succeeded on dm:a1`));
});

test('a failed turn is told once, with its code; a message too long is cut after masking', async () => {
  // The secret straddles the excerpt's cut: masked first, so not even its start is shown.
  const long = `${'x'.repeat(190)}${SECRET}${'y'.repeat(1500)}`;
  const posted = await post(d, 'dm:broken', long);
  const turnId = posted.turns[0]!.turnId;
  assert.equal((await waitTurn(d, turnId)).state, 'failed');
  const created = await events.next(
    (f) => f.type === 'message.created' && f.data.id === posted.message.id,
  );
  assert.equal([...String(created.data.excerpt)].length, 200);
  assert.equal(created.data.length, [...long].length);
  assert.ok(
    !String(created.data.excerpt).includes(SECRET.slice(0, 8)),
    String(created.data.excerpt),
  );
  const finished = await events.next((f) => f.type === 'turn.finished' && f.data.turnId === turnId);
  assert.deepEqual([finished.data.state, finished.data.error], ['failed', 'runtime_failed']);
  await watchedLine(new RegExp(`turn\\.finished  broken  ${turnId} failed \\(runtime_failed\\)`));
  const msgLine = await watchedLine(/human:ada {2}dm:broken: x{20}/);
  assert.ok(msgLine.endsWith(' …'), 'a cut excerpt says so');
});

test('approvals: requested by an agent, decided by a person; each once, title masked and inert', async () => {
  const asked = await call(rt, 'approval', 'request', { title: `ship ${SECRET} ${NASTY}` });
  assert.equal(asked.status, 200, asked.text);
  const id = asked.json.data.approval.id as string;
  const r = await d.cli(['approval', 'decide', id, 'approve', '--note', 'ok']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const decided = await events.next((f) => f.type === 'approval.decided' && f.data.id === id);
  const requested = events.frames.find((f) => f.type === 'approval.requested' && f.data.id === id)!;
  assert.ok(requested.seq < decided.seq);
  assert.deepEqual(
    [requested.data.requestedBy, requested.data.status],
    ['agent:planner', 'pending'],
  );
  assert.deepEqual([decided.data.status, decided.data.decidedBy], ['approved', 'human:operator']);
  assert.equal(events.frames.filter(about(id)).length, 2);
  // A second decision is refused and announces nothing.
  const again = await d.cli(['approval', 'decide', id, 'reject']);
  assert.notEqual(again.code, 0);
  const line = await watchedLine(new RegExp(`approval\\.requested  agent:planner  ${id} "ship`));
  assert.ok(line.includes(LABEL) && !line.includes('\u001b') && !line.includes('\u202e'), line);
  await watchedLine(new RegExp(`approval\\.decided  human:operator  ${id} approved`));
  assert.equal(events.frames.filter(about(id)).length, 2);
});

test('tasks: created and updated, the fields each write set; a replayed create announces nothing', async () => {
  const input = { title: `fix ${SECRET}`, assignee: 'a1', idempotencyKey: 'once-1' };
  const made = await call(rt, 'task', 'create', input);
  assert.equal(made.status, 200, made.text);
  const replay = await call(rt, 'task', 'create', input);
  assert.equal(replay.json.data.task.id, made.json.data.task.id);
  const id = made.json.data.task.id as string;
  const upd = await call(rt, 'task', 'update', { id, status: 'done' });
  assert.equal(upd.status, 200, upd.text);
  const bad = await call(rt, 'task', 'update', { id, expectedRevision: 1, title: 'stale' });
  assert.equal(bad.json.error.code, 'revision_conflict');
  const updated = await events.next(
    (f) => f.type === 'task.changed' && f.data.change === 'updated' && f.data.id === id,
  );
  const created = events.frames.find((f) => f.type === 'task.changed' && f.data.id === id)!;
  assert.deepEqual(
    [created.data.change, created.data.fields, created.data.actor, created.data.assignee],
    ['created', ['title', 'assignee'], 'planner', 'a1'],
  );
  assert.deepEqual(
    [updated.data.fields, updated.data.status, updated.data.revision],
    [['status'], 'done', 2],
  );
  assert.ok(String(created.data.title).includes(LABEL));
  await watchedLine(
    new RegExp(`task\\.changed  planner  ${id} updated \\(status\\) status=done assignee=a1`),
  );
  assert.equal(
    events.frames.filter(about(id)).length,
    2,
    'the replay and the refused update are not events',
  );
  assert.ok(!JSON.stringify(events.frames).includes(SECRET));
  assert.ok(!watched.includes(SECRET), 'watch never prints the secret');
  assert.ok(!/[\u001b\u009b\u202e]/.test(watched), 'watch prints no raw escape');
});

test('watch refuses an unknown kind and a home without a daemon, with the usual envelope', async () => {
  const bad = await d.cli(['watch', '--kind', 'message.created,bogus.kind']);
  assert.notEqual(bad.code, 0);
  assert.equal(JSON.parse(bad.stdout).error.code, 'usage');
  assert.match(bad.stderr, /not bogus\.kind/);
  const empty = mkdtempSync(join(tmpdir(), 'agentteam-events-none-'));
  const none = await cliEnv(['watch'], { ...process.env, AGENTTEAM_HOME: empty });
  assert.equal(none.code, 3, none.stderr);
  assert.equal(JSON.parse(none.stdout).error.code, 'unavailable');
});

test('watch --kind --target --json prints only those events; after a daemon restart it connects again', async () => {
  let json = '';
  const only = cliSpawn(
    ['watch', '--kind', 'message.created', '--target', 'channel:ops', '--json'],
    { ...process.env, AGENTTEAM_HOME: d.home },
    (p) => pids.add(p),
  );
  only.stdout!.setEncoding('utf8');
  only.stdout!.on('data', (s: string) => (json += s));
  await said(only, 'following');
  await post(d, 'channel:elsewhere', 'not this');
  await post(d, 'channel:ops', 'one');
  for (const until = Date.now() + 10_000; !json.includes('"one"') && Date.now() < until; )
    await new Promise((r) => setTimeout(r, 20));
  const lost = said(watch, 'waiting for the daemon');
  const back = [said(watch, 'connected again'), said(only, 'connected again')];
  await d.stop();
  await lost;
  await d.start();
  await Promise.all(back);
  const second = await post(d, 'channel:ops', 'two after the restart');
  await watchedLine(/human:ada {2}channel:ops: two after the restart/);
  for (const until = Date.now() + 10_000; !json.includes('two after') && Date.now() < until; )
    await new Promise((r) => setTimeout(r, 20));
  const lines = json
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; data: { id: string; target: string } });
  assert.deepEqual(
    lines.map((l) => [l.type, l.data.target]),
    [
      ['message.created', 'channel:ops'],
      ['message.created', 'channel:ops'],
    ],
  );
  assert.equal(lines[1]!.data.id, second.message.id);
});
