import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connectAgent } from '../../devkit/client-tools.js';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { spawnServe, type StdioApp } from '../../devkit/serve-stdio.js';
import {
  noProcessOf,
  processesOf,
  recordOf,
  SEED_INITIALIZE_PARAMS,
  TOOL_CALL_FIXTURE,
} from '../../devkit/stdio-runs.js';
import { waitTurn } from '../../devkit/turns.js';
import { scriptBinary } from '../../devkit/script-binary.js';

/**
 * With sessions and runs in play, the bounds of the stdio protocol still
 * hold (the figures are the contract's, written here, not read from the
 * code): 16 pending calls shared by every run and lease of the child, 16384
 * argument bytes, 4096 lifetime request ids counting session methods,
 * 65536-byte input frames; and a child that goes away (stdin closed, an
 * oversized frame, SIGKILL) ends its sessions' running and queued turns
 * `cancelled` with reason `shutdown`, leaving no runtime process.
 */

const PENDING_CALLS = 16;
const ARGUMENTS_BYTES = 16_384;
const LIFETIME_IDS = 4096;
const INPUT_FRAME_BYTES = 65_536;
/** The child's output flush bound after stdin ends, plus slack for a loaded machine. */
const CLEANUP_MS = 2000 + 1500;

const AGENTS = ['p1', 'p2', 'p3', 'p4', 'p5', 'args', 'ids', 'frame', 'stdin', 'kill'];

let d: SpawnedDaemon;
let root: string;
let records: string;
const apps: StdioApp[] = [];

async function seedApp(t: { after(fn: () => Promise<unknown>): void }): Promise<StdioApp> {
  const app = spawnServe(d);
  apps.push(app);
  t.after(() => app.close());
  app.send(
    `{"jsonrpc":"2.0","id":"init","method":"initialize","params":${SEED_INITIALIZE_PARAMS.replaceAll('\n', '')}}`,
  );
  assert.ok((await app.next((f) => f.id === 'init')).result);
  return app;
}

/** Opens a session on `agent` and starts a turn with `text`; the run id. */
async function run(app: StdioApp, agent: string, text: string) {
  const s = await app.request('session.create', { agent });
  const r = await app.request('turn.start', { session_id: s.result.session_id, text });
  assert.ok(r.result, JSON.stringify(r));
  return { sessionId: s.result.session_id as string, runId: r.result.run_id as string };
}

const finished = (app: StdioApp, runId: string) =>
  app.next((f) => f.method === 'run.finished' && f.params.data.run_id === runId, 20_000);

async function endedByShutdown(runId: string) {
  const turn = await waitTurn(d, runId);
  assert.deepEqual([turn.state, turn.error], ['cancelled', 'shutdown'], runId);
  await noProcessOf(runId);
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentteam-stdio-run-bounds-'));
  records = join(root, 'records');
  const home = join(root, 'agentteam');
  for (const dir of [records, home]) mkdirSync(dir);
  const claude = join(root, 'claude');
  scriptBinary(claude, TOOL_CALL_FIXTURE);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: AGENTS.map((id) => ({ id, runtime: 'claude', launch: { binary: claude } })),
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

test('16 pending calls across four runs and a lease; the 17th, from a fifth run, fails at once with client_tool_busy', async (t) => {
  const app = await seedApp(t);
  const runs = [];
  for (const agent of ['p1', 'p2', 'p3', 'p4']) runs.push(await run(app, agent, 'look it up'));
  const calls = [];
  for (let i = 0; i < 4; i++) calls.push(await app.nextCall(30_000));
  assert.deepEqual(
    new Set(calls.map((c) => `${c.params.data.session_id}/${c.params.data.run_id}`)),
    new Set(runs.map((r) => `${r.sessionId}/${r.runId}`)),
  );
  const lease = await connectAgent(d, 'p5');
  t.after(() => lease.close());
  const leaseCalls = [];
  for (let i = 0; i < PENDING_CALLS - 4; i++)
    leaseCalls.push(
      lease.client.callTool({ name: 'client__lookup_record', arguments: { record_id: `r${i}` } }),
    );
  for (let i = 4; i < PENDING_CALLS; i++) calls.push(await app.nextCall(10_000));
  assert.equal(calls.filter((c) => c.params.data.run_id === lease.runId).length, 12);

  const fifth = await run(app, 'p5', 'look it up');
  const rec = await recordOf(records, fifth.runId, (r) => r.result !== null);
  assert.equal(rec.result!.isError, true);
  assert.match(rec.result!.text, /client_tool_busy/);
  assert.equal(
    app.frames.filter((f) => f.method === 'client.tool.call').length,
    PENDING_CALLS,
    'the 17th call never reached the app',
  );
  for (const c of [...calls].reverse()) {
    const ack = await app.answer(c, { text: `for ${c.params.data.arguments.record_id}` });
    assert.deepEqual(ack.result, { accepted: true });
  }
  const answers = await Promise.all(leaseCalls);
  assert.deepEqual(
    answers.map((a) => (a.content as { text: string }[])[0]!.text),
    answers.map((_, i) => `for r${i}`),
  );
  for (const r of [...runs, fifth])
    assert.equal((await finished(app, r.runId)).params.data.status, 'succeeded');
});

test('a run sends arguments of 16384 bytes (two-byte characters) to the app; 16385 fail in the daemon with client_tool_payload_limit', async (t) => {
  const app = await seedApp(t);
  const s = await app.request('session.create', { agent: 'args' });
  const sessionId = s.result.session_id;
  const at = await app.request('turn.start', {
    session_id: sessionId,
    text: `ARGS_BYTES ${ARGUMENTS_BYTES}`,
  });
  const call = await app.nextCall(20_000);
  assert.equal(call.params.data.run_id, at.result.run_id);
  const args = call.params.data.arguments;
  assert.equal(Buffer.byteLength(JSON.stringify(args)), ARGUMENTS_BYTES);
  assert.ok(args.record_id.startsWith('éé'), 'multi-byte characters count as bytes');
  await app.answer(call, { text: 'ok' });
  assert.equal((await finished(app, at.result.run_id)).params.data.status, 'succeeded');

  const past = await app.request('turn.start', {
    session_id: sessionId,
    text: `ARGS_BYTES ${ARGUMENTS_BYTES + 1}`,
  });
  const rec = await recordOf(records, past.result.run_id, (r) => r.result !== null);
  assert.equal(rec.result!.isError, true);
  assert.match(rec.result!.text, /client_tool_payload_limit/);
  await finished(app, past.result.run_id);
  assert.equal(
    app.frames.filter(
      (f) => f.method === 'client.tool.call' && f.params.data.run_id === past.result.run_id,
    ).length,
    0,
  );
});

test('the 4096 lifetime request ids count session methods: id 4096 starts a turn, 4097 is refused; closing stdin then ends the run (shutdown)', async (t) => {
  const app = await seedApp(t); // id 1
  const s = await app.request('session.create', { agent: 'ids' }); // id 2
  // Ids 3..4095: cheap requests answered by the child itself.
  for (let n = 3; n < LIFETIME_IDS; ) {
    const batch = [];
    for (const end = Math.min(n + 500, LIFETIME_IDS); n < end; n++)
      batch.push(JSON.stringify({ jsonrpc: '2.0', id: n, method: 'x.noop' }));
    app.child.stdin!.write(`${batch.join('\n')}\n`);
    const last = n - 1;
    const answer = await app.next((f) => f.id === last, 20_000);
    assert.equal(answer.error.data.code, 'unsupported_method');
  }
  const started = await app.request(
    'turn.start',
    { session_id: s.result.session_id, text: 'HOLD after the call' },
    LIFETIME_IDS,
  );
  const runId = started.result.run_id;
  assert.match(runId, /^turn_/, 'the 4096th id is still admitted');
  const call = await app.nextCall(20_000);
  assert.equal(call.params.data.run_id, runId);
  const late = await app.answer(call, { text: 'too late' });
  assert.equal(late.error.data.code, 'request_ids_exhausted');
  assert.ok(processesOf(runId).length > 0);
  await app.close();
  await endedByShutdown(runId);
});

test('an input frame of 65536 bytes (LF excluded) starts a turn; one of 65537 closes the child and its running turn ends cancelled (shutdown)', async (t) => {
  const app = await seedApp(t);
  const s = await app.request('session.create', { agent: 'frame' });
  /** A turn.start frame padded with JSON whitespace to exactly `bytes`. */
  const frame = (id: string, bytes: number) => {
    const base = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'turn.start',
      params: { session_id: s.result.session_id, text: 'HOLD é' },
    });
    const padded = `${base.slice(0, -1)}${' '.repeat(bytes - Buffer.byteLength(base))}}`;
    assert.equal(Buffer.byteLength(padded), bytes);
    return padded;
  };
  app.send(frame('at', INPUT_FRAME_BYTES));
  const started = await app.next((f) => f.id === 'at');
  const runId = started.result.run_id;
  assert.match(runId, /^turn_/);
  await app.answer(await app.nextCall(20_000), { text: 'ok' });
  await recordOf(records, runId, (r) => r.result !== null);
  app.send(frame('past', INPUT_FRAME_BYTES + 1));
  assert.equal(await app.exited, 1);
  const closing = app.frames.at(-1);
  assert.deepEqual([closing.id, closing.error.data.code], [null, 'body_too_large']);
  await endedByShutdown(runId);
});

test('stdin closing mid-turn: the child exits within the cleanup bound, its running and queued turns end cancelled (shutdown), no runtime is left', async (t) => {
  const app = await seedApp(t);
  const running = await run(app, 'stdin', 'HOLD after the call');
  const queued = await app.request('turn.start', {
    session_id: running.sessionId,
    text: 'the next turn',
  });
  await app.nextCall(20_000); // left pending
  assert.equal((await waitTurn(d, queued.result.run_id, ['queued'])).state, 'queued');
  const t0 = Date.now();
  app.child.stdin!.end();
  await app.exited;
  assert.ok(Date.now() - t0 < CLEANUP_MS, `exited after ${Date.now() - t0} ms`);
  await endedByShutdown(running.runId);
  await endedByShutdown(queued.result.run_id);
});

test('the app killed (SIGKILL) mid-turn: the turn ends cancelled (shutdown) and its runtime is gone', async (t) => {
  const app = await seedApp(t);
  const { runId } = await run(app, 'kill', 'HOLD until stopped');
  await app.answer(await app.nextCall(20_000), { text: 'ok' });
  const rec = await recordOf(records, runId, (r) => r.result !== null);
  assert.ok(processesOf(runId).includes(rec.pid), 'the runtime holds');
  app.child.kill('SIGKILL');
  await app.exited;
  await endedByShutdown(runId);
});
