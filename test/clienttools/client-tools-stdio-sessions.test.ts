import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LIMITS } from '../../catalog/limits.js';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';
import {
  noProcessOf,
  processesOf,
  recordOf,
  SEED_INITIALIZE_PARAMS,
  TOOL_CALL_FIXTURE,
} from '../../devkit/stdio-runs.js';
import { post, waitTurn } from '../../devkit/turns.js';
import { scriptBinary } from '../../devkit/script-binary.js';

/**
 * An app drives an agent through `serve --stdio`: it negotiates sessions and
 * turns with its tool (the seed's example params verbatim), opens a session,
 * starts turns run by the daemon's one runner (a stand-in `claude` that
 * calls the app's tool over MCP), sees the run's identities on the call,
 * `run.finished` after the call's end, the runtime session resumed by the
 * next turn, cancels a run, and leaves no runtime behind when it exits.
 */

let d: SpawnedDaemon;
let root: string;
let records: string;
let work: string;
let sub: string;
const apps: StdioApp[] = [];

/** A child initialized with the seed's example params, verbatim (closed when the test ends: the tool's name is its own). */
async function seedApp(t: { after(fn: () => Promise<unknown>): void }): Promise<{
  app: StdioApp;
  init: any;
}> {
  const app = spawnServe(d);
  apps.push(app);
  t.after(() => app.close());
  app.send(
    `{"jsonrpc":"2.0","id":"init","method":"initialize","params":${SEED_INITIALIZE_PARAMS.replaceAll('\n', '')}}`,
  );
  const init = await app.next((f) => f.id === 'init');
  return { app, init };
}

const notice = (app: StdioApp, method: string, runId: string) =>
  app.next((f) => f.method === method && f.params?.data?.run_id === runId, 20_000);

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentteam-stdio-sessions-'));
  records = join(root, 'records');
  work = join(root, 'work');
  sub = join(work, 'sub');
  const home = join(root, 'agentteam');
  for (const dir of [records, work, sub, home, join(root, 'outside')]) mkdirSync(dir);
  const claude = join(root, 'claude');
  scriptBinary(claude, TOOL_CALL_FIXTURE);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'helper',
          runtime: 'claude',
          filesystem: { allowedPaths: [work] },
          launch: { binary: claude },
        },
      ],
      teams: [],
    }),
  );
  d = await startDaemon({ home, env: { TOOL_CALL_RECORD: records } });
});

after(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await d?.close();
  rmSync(root, { recursive: true, force: true });
});

test('the seed initialize example is admitted and names what was negotiated', async (t) => {
  const { init } = await seedApp(t);
  assert.ok(init.result, JSON.stringify(init));
  assert.deepEqual(init.result.capabilities, ['client.tools', 'session.create', 'turn.start']);
  assert.deepEqual(init.result.client_tools.tools, ['client__lookup_record']);
  const plain = spawnServe(d);
  apps.push(plain);
  const r = await plain.request('initialize', {
    required_capabilities: ['session.create', 'turn.start'],
  });
  assert.deepEqual(r.result.capabilities, ['session.create', 'turn.start']);
  const other = spawnServe(d);
  apps.push(other);
  const refused = await other.request('initialize', {
    required_capabilities: ['session.create', 'turn.stop'],
  });
  assert.equal(refused.error.data.code, 'invalid_params');
  assert.match(refused.error.message, /does not provide the required capability "turn.stop"/);
  // Refused before any effect: the child may initialize again with a fresh id.
  const again = await other.request('initialize', { required_capabilities: ['session.create'] });
  assert.deepEqual(again.result.capabilities, ['session.create']);
  const noTurns = await other.request('turn.start', { session_id: 'ses_x', text: 'x' });
  assert.equal(noTurns.error.data.code, 'unsupported_method');
});

test('a run: its call carries the session and run the app got; run.finished follows the result; the next turn resumes the session', async (t) => {
  const { app } = await seedApp(t);
  const created = await app.request('session.create', { agent: 'helper', workdir: sub });
  const sessionId = created.result.session_id;
  assert.match(sessionId, /^ses_/);
  const sessions: string[] = [];
  for (const round of [1, 2]) {
    const started = await app.request('turn.start', {
      session_id: sessionId,
      text: `look up the example record (${round})`,
    });
    const runId = started.result.run_id;
    assert.match(runId, /^turn_/);
    const runStarted = await notice(app, 'run.started', runId);
    assert.ok(app.frames.indexOf(runStarted) > app.frames.indexOf(started), 'after the answer');
    assert.deepEqual(runStarted.params.data, { session_id: sessionId, run_id: runId });
    const call = await app.nextCall(20_000);
    const { session_id, run_id, task_id, subagent_id } = call.params.data;
    assert.deepEqual(
      { session_id, run_id, task_id, subagent_id },
      { session_id: sessionId, run_id: runId, task_id: null, subagent_id: null },
    );
    const ack = await app.answer(call, { text: 'Record found.', structured: { found: true } });
    assert.deepEqual(ack.result, { accepted: true });
    const finished = await notice(app, 'run.finished', runId);
    assert.ok(app.frames.indexOf(finished) > app.frames.indexOf(ack), 'after the tool result');
    assert.deepEqual(finished.params.data, {
      session_id: sessionId,
      run_id: runId,
      status: 'succeeded',
    });
    const rec = await recordOf(records, runId, (r) => r.result !== null);
    assert.equal(rec.result!.text, 'Record found.');
    assert.equal(rec.cwd, realpathSync(sub), 'the runtime starts in the session workdir');
    assert.match(rec.prompt, /look up the example record/);
    assert.equal(rec.resumed, round === 2, 'the second turn resumes the session');
    sessions.push(rec.session);
    const turn = await waitTurn(d, runId);
    assert.equal(turn.state, 'succeeded');
    assert.equal(turn.target, 'dm:helper');
  }
  assert.equal(sessions[0], sessions[1], 'one runtime session across the turns');
});

test('one runner for both doors; turn.cancel of a queued run, and of a running one: client.tool.cancel first, then run.finished cancelled, no runtime left', async (t) => {
  const { app } = await seedApp(t);
  const { result } = await app.request('session.create', { agent: 'helper' });
  const started = await app.request('turn.start', {
    session_id: result.session_id,
    text: 'HOLD after the call',
  });
  const runId = started.result.run_id;
  const call = await app.nextCall(20_000);
  assert.equal(call.params.data.run_id, runId);
  // Two doors, one runner: a queued run is its own turn, and the agent runs one turn at a time.
  const queued = await app.request('turn.start', { session_id: result.session_id, text: 'later' });
  const posted = await post(d, 'dm:helper', 'a person writes meanwhile');
  assert.equal(posted.turns[0]!.joined, false, 'a message never joins a stdio run');
  const delivered = await waitTurn(d, posted.turns[0]!.turnId, ['queued']);
  assert.equal((await d.cli(['turn', 'cancel', delivered.id])).code, 0);
  const dropped = await app.request('turn.cancel', {
    session_id: result.session_id,
    run_id: queued.result.run_id,
  });
  assert.equal(dropped.result.state, 'cancelled');
  const queuedEnd = await notice(app, 'run.finished', queued.result.run_id);
  assert.equal(queuedEnd.params.data.status, 'cancelled');
  const cancelled = await app.request('turn.cancel', {
    session_id: result.session_id,
    run_id: runId,
  });
  assert.equal(cancelled.result.run_id, runId);
  const cancel = await app.next(
    (f) => f.method === 'client.tool.cancel' && f.params.data.call_id === call.params.data.call_id,
  );
  assert.equal(cancel.params.data.reason, 'run_finished');
  const finished = await notice(app, 'run.finished', runId);
  assert.equal(finished.params.data.status, 'cancelled');
  assert.ok(app.frames.indexOf(finished) > app.frames.indexOf(cancel), 'after the last call ended');
  await noProcessOf(runId);
  const late = await app.request('turn.cancel', { session_id: result.session_id, run_id: runId });
  assert.equal(late.error.data.code, 'invalid_params', 'an ended run is no longer the session’s');
});

test('the child exiting mid-turn cancels the run (shutdown) and leaves no runtime process', async (t) => {
  const { app } = await seedApp(t);
  const { result } = await app.request('session.create', { agent: 'helper' });
  const started = await app.request('turn.start', {
    session_id: result.session_id,
    text: 'HOLD until stopped',
  });
  const runId = started.result.run_id;
  const call = await app.nextCall(20_000);
  await app.answer(call, { text: 'ok' });
  const rec = await recordOf(records, runId, (r) => r.result !== null);
  assert.ok(existsSync(`/proc/${rec.pid}`), 'the runtime holds');
  assert.ok(processesOf(runId).length > 0);
  await app.close();
  const turn = await waitTurn(d, runId);
  assert.deepEqual([turn.state, turn.error], ['cancelled', 'shutdown']);
  await noProcessOf(runId);
});

test('bad input gets clear errors', async (t) => {
  const { app } = await seedApp(t);
  const other = { app: spawnServe(d) };
  apps.push(other.app);
  await other.app.request('initialize', {
    required_capabilities: ['session.create', 'turn.start'],
  });
  const code = (r: any) => r.error?.data?.code;
  const unknown = await app.request('session.create', { agent: 'nobody' });
  assert.equal(code(unknown), 'invalid_params');
  assert.match(unknown.error.message, /no agent nobody/);
  const outside = await app.request('session.create', {
    agent: 'helper',
    workdir: join(root, 'outside'),
  });
  assert.equal(code(outside), 'invalid_params');
  assert.match(outside.error.message, /allowed paths/);
  const badTarget = await app.request('session.create', { agent: 'helper', target: 'nowhere' });
  assert.equal(code(badTarget), 'invalid_params');
  const extra = await app.request('session.create', { agent: 'helper', model: 'x' });
  assert.match(extra.error.message, /unknown field "model"/);
  const noSession = await app.request('turn.start', { session_id: 'ses_AAAAAAAAAAAA', text: 'x' });
  assert.equal(code(noSession), 'invalid_params');
  assert.match(noSession.error.message, /no session/);
  const theirs = await other.app.request('session.create', {
    agent: 'helper',
    target: 'channel:general',
  });
  const foreign = await app.request('turn.start', {
    session_id: theirs.result.session_id,
    text: 'x',
  });
  assert.match(foreign.error.message, /no session/, "another child's session is not this one's");
  const mine = await app.request('session.create', { agent: 'helper' });
  const over = await app.request('turn.start', {
    session_id: mine.result.session_id,
    text: 'x'.repeat(LIMITS.messageContent.chars + 1),
  });
  assert.equal(code(over), 'invalid_params');
  const at = await app.request('turn.start', {
    session_id: mine.result.session_id,
    text: `HOLD ${'x'.repeat(LIMITS.messageContent.chars - 5)}`,
  });
  assert.match(at.result.run_id, /^turn_/, 'text at the limit is admitted');
  await app.request('turn.cancel', {
    session_id: mine.result.session_id,
    run_id: at.result.run_id,
  });
  await notice(app, 'run.finished', at.result.run_id);
  await noProcessOf(at.result.run_id);
});

test("a delivered turn's call carries that turn's own identities: its conversation and its id", async (t) => {
  const { app } = await seedApp(t);
  const posted = await post(d, 'dm:helper', 'look it up');
  const turnId = posted.turns[0]!.turnId;
  const call = await app.nextCall(20_000);
  const { session_id, run_id, task_id, subagent_id } = call.params.data;
  assert.deepEqual(
    { session_id, run_id, task_id, subagent_id },
    { session_id: 'dm:helper', run_id: turnId, task_id: null, subagent_id: null },
  );
  await app.answer(call, { text: 'found' });
  assert.equal((await waitTurn(d, turnId)).state, 'succeeded');
  assert.equal(
    app.frames.some((f) => f.method === 'run.finished'),
    false,
    'run notifications are for stdio runs only',
  );
});
