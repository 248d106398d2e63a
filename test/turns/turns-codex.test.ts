import { strict as assert } from 'node:assert';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { post, waitTurn } from '../../devkit/turns.js';
import { scriptBinary } from '../../devkit/script-binary.js';

/**
 * Codex agents' turns: the daemon runs `codex app-server` (here a JSON-RPC
 * stand-in, test/fixtures/turn-runtime/app-server.mjs; the real Codex runs
 * in the interop suite) under the turn watchdog, starts a thread, resumes it
 * on the next message to the same target, and stops the app server when the
 * turn is cancelled or the daemon dies.
 */

const FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/turn-runtime/app-server.mjs', import.meta.url),
);

interface Record {
  pid: number;
  argv: string[];
  cwd: string;
  headerEnv: { [name: string]: string };
  got: { method: string; params: any }[];
  answers: unknown[];
  closed?: boolean;
}

let d: SpawnedDaemon;
let root: string;
let records: string;
let threads: string;
let work: string;

/** The record of the app server a turn started (the newest one that is not in `seen`). */
async function newRecord(seen: Set<string>): Promise<Record> {
  for (let i = 0; i < 200; i++) {
    const f = readdirSync(records).find((x) => !seen.has(x));
    if (f) {
      seen.add(f);
      return JSON.parse(readFileSync(join(records, f), 'utf8')) as Record;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('no app server started');
}

const reread = (r: Record) =>
  JSON.parse(readFileSync(join(records, `${r.pid}.json`), 'utf8')) as Record;

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !existsSync(`/proc/${pid}`);
}

const seen = new Set<string>();

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentteam-turns-codex-'));
  records = join(root, 'records');
  threads = join(root, 'threads');
  work = join(root, 'work');
  for (const dir of [records, threads, work]) mkdirSync(dir);
  const codex = join(root, 'codex');
  scriptBinary(codex, FIXTURE);
  const home = join(root, 'agentteam');
  mkdirSync(home);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'cx',
          runtime: 'codex',
          model: 'gpt-test',
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKeyEnv: 'FAKE_MODEL_KEY',
          headers: { 'X-Gateway-Team': 'codex-header-secret', 'Not A Token': 'dropped' },
          filesystem: { allowedPaths: [work] },
          launch: { binary: codex, args: ['--fake-arg'] },
        },
        {
          id: 'cxhang',
          runtime: 'codex-app-server',
          filesystem: { allowedPaths: [work] },
          launch: { binary: codex, args: ['hang'] },
        },
      ],
      teams: [],
    }),
  );
  d = await startDaemon({
    home,
    env: { FAKE_RECORD: records, FAKE_THREADS: threads, CODEX_HOME: join(root, 'user-codex') },
  });
});
after(async () => {
  await d?.close();
  rmSync(root, { recursive: true, force: true });
});

test('a codex turn drives codex app-server: a thread with agentteam tools, the prompt, the reply', async () => {
  const { message, turns } = await post(d, 'dm:cx', 'What changed?');
  const t = await waitTurn(d, turns[0]!.turnId);
  assert.equal(t.state, 'succeeded', JSON.stringify(t));
  assert.equal(t.replied, true);
  assert.equal(t.resumed, false);
  assert.match(t.sessionId ?? '', /^thr-/);
  const rec = reread(await newRecord(seen));
  // agentteam's feature and the profile's model settings as -c layers, then the subcommand, then launch.args.
  const at = rec.argv.indexOf('app-server');
  assert.ok(at > 0, rec.argv.join(' '));
  assert.deepEqual(rec.argv.slice(at), ['app-server', '--fake-arg']);
  const layers = rec.argv.slice(0, at).join(' ');
  assert.match(layers, /-c features\.multi_agent_v2_dynamic_tools=true/);
  assert.match(layers, /-c model="gpt-test"/);
  assert.match(
    layers,
    /-c model_providers\.agentteam_profile\.base_url="http:\/\/127\.0\.0\.1:9\/v1"/,
  );
  assert.match(layers, /-c model_providers\.agentteam_profile\.env_key="FAKE_MODEL_KEY"/);
  assert.match(layers, /-c model_provider="agentteam_profile"/);
  // Header values wait in the environment; the command line (readable by every user) names the variable.
  assert.match(
    layers,
    /-c model_providers\.agentteam_profile\.env_http_headers=\{ "X-Gateway-Team" = "AGENTTEAM_MODEL_HEADER_0" \}/,
  );
  assert.deepEqual(rec.headerEnv, { AGENTTEAM_MODEL_HEADER_0: 'codex-header-secret' });
  assert.ok(!rec.argv.join(' ').includes('codex-header-secret'));
  assert.equal(rec.cwd, work);
  assert.deepEqual(
    rec.got.map((g) => g.method),
    ['initialize', 'initialized', 'thread/start', 'turn/start'],
  );
  const start = rec.got[2]!.params;
  assert.equal(start.cwd, work);
  assert.match(start.developerInstructions, /# AgentTeam tools/);
  assert.equal(start.dynamicTools[0].name, 'agentteam');
  assert.ok(start.dynamicTools[0].tools.some((x: any) => x.name === 'message_send'));
  const turnStart = rec.got[3]!.params;
  assert.equal(turnStart.threadId, t.sessionId);
  assert.match(
    turnStart.input[0].text,
    new RegExp(`exactly this target: dm:cx, with replyTo set to ${message.id}`),
  );
  assert.equal((rec.answers[0] as { success: boolean }).success, true);
  assert.equal(rec.closed, true, 'the app server was told to end (stdin closed)');
  const history = JSON.parse((await d.cli(['message', 'history', '--target', 'dm:cx'])).stdout).data
    .messages as { author: string; replyTo: string | null; content: string }[];
  const reply = history.find((m) => m.author === 'agent:cx');
  assert.equal(reply?.replyTo, message.id);
  assert.equal(reply?.content, `fake codex on ${t.sessionId}`);
});

test('the next message on the target resumes the thread; a thread Codex lost gets a new one', async () => {
  const first = JSON.parse((await d.cli(['turn', 'list', '--agent', 'cx'])).stdout).data.turns[0]
    .sessionId as string;
  const p = await post(d, 'dm:cx', 'And now?');
  const t = await waitTurn(d, p.turns[0]!.turnId);
  assert.equal(t.state, 'succeeded', JSON.stringify(t));
  assert.equal(t.resumed, true);
  assert.equal(t.sessionId, first);
  const rec = reread(await newRecord(seen));
  assert.deepEqual(
    rec.got.map((g) => g.method),
    ['initialize', 'initialized', 'thread/resume', 'turn/start'],
  );
  assert.equal(rec.got[2]!.params.threadId, first);
  assert.equal(rec.got[3]!.params.threadId, first);

  // The app server no longer knows the thread: the turn starts a new one and stores it.
  for (const f of readdirSync(threads)) rmSync(join(threads, f));
  const q = await post(d, 'dm:cx', 'Still there?');
  const u = await waitTurn(d, q.turns[0]!.turnId);
  assert.equal(u.state, 'succeeded', JSON.stringify(u));
  assert.equal(u.resumed, false);
  assert.notEqual(u.sessionId, first);
  const lost = reread(await newRecord(seen));
  assert.deepEqual(
    lost.got.map((g) => g.method),
    ['initialize', 'initialized', 'thread/resume', 'thread/start', 'turn/start'],
  );
});

test('cancel stops the app server; kill -9 of the daemon leaves none behind', async () => {
  const p = await post(d, 'dm:cxhang', 'take your time');
  await waitTurn(d, p.turns[0]!.turnId, ['running']);
  const rec = await newRecord(seen);
  assert.ok(existsSync(`/proc/${rec.pid}`));
  const cancel = await d.cli(['turn', 'cancel', p.turns[0]!.turnId]);
  assert.equal(cancel.code, 0, cancel.stderr + cancel.stdout);
  const t = await waitTurn(d, p.turns[0]!.turnId);
  assert.equal(t.state, 'cancelled');
  assert.ok(await gone(rec.pid, 6_000), `app server ${rec.pid} outlived its cancelled turn`);

  const q = await post(d, 'dm:cxhang', 'again');
  await waitTurn(d, q.turns[0]!.turnId, ['running']);
  const again = await newRecord(seen);
  d.kill9();
  // TERM at once from the watchdog (KILL after its 3 s grace at worst).
  assert.ok(await gone(again.pid, 6_000), `app server ${again.pid} outlived the daemon`);
  await d.start();
  const u = await waitTurn(d, q.turns[0]!.turnId);
  assert.equal(u.state, 'interrupted');
});
