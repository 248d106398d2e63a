import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { post, waitTurn, type Turn } from '../../devkit/turns.js';
import { scriptBinary } from '../../devkit/script-binary.js';

/**
 * OpenCode agents' turns as the daemon starts them, against a stand-in of
 * `opencode run --format json` (test/fixtures/turn-runtime/opencode.mjs; the
 * real OpenCode runs in the interop suite): the prompt on stdin, the session
 * learnt from the runtime's JSON events and continued with `--session` by
 * the next turn on the same target only; a runtime whose output names no
 * session still answers, and nothing of the output reaches the daemon's log.
 */

const FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/turn-runtime/opencode.mjs', import.meta.url),
);

interface Rec {
  pid: number;
  argv: string[];
  stdin: string;
  config: string | null;
  env: Record<string, string>;
  turn: string;
}

let d: SpawnedDaemon;
let root: string;
let records: string;

/** What the runtime of turn `t` recorded. */
function recordOf(t: Turn): Rec {
  for (const f of readdirSync(records).filter((x) => x.endsWith('.json'))) {
    const r = JSON.parse(readFileSync(join(records, f), 'utf8')) as Rec;
    if (r.turn === t.id) return r;
  }
  return assert.fail(`no opencode run recorded for ${t.id}`);
}

const SESSION = /^ses_[0-9a-f]{24}$/;

async function turnOf(target: string, text: string): Promise<Turn> {
  const posted = await post(d, target, text);
  assert.equal(posted.turns.length, 1, JSON.stringify(posted));
  const t = await waitTurn(d, posted.turns[0]!.turnId);
  assert.equal(t.state, 'succeeded', JSON.stringify(t));
  return t;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentteam-turns-opencode-'));
  records = join(root, 'records');
  const work = join(root, 'work');
  const home = join(root, 'agentteam');
  for (const dir of [records, work, home]) mkdirSync(dir);
  const opencode = join(root, 'opencode');
  scriptBinary(opencode, FIXTURE);
  const agent = (id: string, args: string[]) => ({
    id,
    runtime: 'opencode',
    filesystem: { allowedPaths: [work] },
    launch: { binary: opencode, args },
  });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        agent('oc', []),
        agent('plain', ['--fixture-plain']),
        agent('noisy', ['--fixture-noise']),
        {
          ...agent('ocm', []),
          model: 'anthropic/gateway-model',
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKeyEnv: 'FAKE_MODEL_KEY',
          headers: { 'X-Gateway-Team': 'opencode-header-secret', 'Bad Name': 'dropped' },
        },
      ],
      teams: [],
    }),
  );
  d = await startDaemon({
    home,
    env: {
      FAKE_RECORD: records,
      FAKE_MODEL_KEY: 'sk-fake',
      // The user's own inline configuration, which the profile's settings are merged into.
      OPENCODE_CONFIG_CONTENT: JSON.stringify({
        share: 'disabled',
        provider: { anthropic: { options: { timeout: 1000 } } },
      }),
    },
  });
});
after(async () => {
  await d?.close();
  rmSync(root, { recursive: true, force: true });
});

test('opencode: JSON events name the session, the next turn on the target continues it, another target does not', async () => {
  const first = await turnOf('dm:oc', 'Hello there');
  assert.match(first.sessionId ?? '', SESSION, JSON.stringify(first));
  assert.equal(first.resumed, false);
  const r1 = recordOf(first);
  assert.deepEqual(r1.argv.slice(0, 3), ['run', '--format', 'json']);
  assert.ok(!r1.argv.includes('--session'), r1.argv.join(' '));
  assert.match(r1.stdin, /exactly this target: dm:oc, with replyTo set to msg_/);
  assert.ok(r1.env.OPENCODE_CONFIG, 'the driver config is named');

  const second = await turnOf('dm:oc', 'Again');
  assert.equal(second.sessionId, first.sessionId);
  assert.equal(second.resumed, true);
  const r2 = recordOf(second);
  assert.equal(r2.argv[r2.argv.indexOf('--session') + 1], first.sessionId);

  const third = await turnOf('dm:oc', 'And a third time');
  assert.equal(third.sessionId, first.sessionId, 'a resumed session resumes again');
  assert.equal(third.resumed, true);

  const elsewhere = await turnOf('channel:ops', '@oc what about here?');
  assert.match(elsewhere.sessionId ?? '', SESSION);
  assert.notEqual(elsewhere.sessionId, first.sessionId);
  assert.equal(elsewhere.resumed, false);
  assert.ok(!recordOf(elsewhere).argv.includes('--session'));
});

test('opencode: output with no session id answers all the same, recorded without a session, never resumed', async () => {
  const first = await turnOf('dm:plain', 'Hello');
  assert.equal(first.sessionId, null);
  assert.equal(first.resumed, false);
  const second = await turnOf('dm:plain', 'Hello again');
  assert.equal(second.sessionId, null);
  assert.equal(second.resumed, false);
  assert.ok(!recordOf(second).argv.includes('--session'));
});

test('opencode: an over-long line, an id of the wrong shape and a line that is not JSON are not taken for the session', async () => {
  const t = await turnOf('dm:noisy', 'Hello');
  assert.match(t.sessionId ?? '', SESSION, JSON.stringify(t));
  assert.notEqual(t.sessionId, `ses_${'f'.repeat(24)}`);
});

test('opencode: nothing the runtime wrote reaches the daemon log', async () => {
  const pids = readdirSync(records)
    .filter((f) => f.endsWith('.json'))
    .map((f) => (JSON.parse(readFileSync(join(records, f), 'utf8')) as Rec).pid);
  assert.ok(pids.length >= 5);
  const logs = await d.cli(['daemon', 'logs', '--limit', '500']);
  assert.equal(logs.code, 0, logs.stderr);
  for (const pid of pids) assert.ok(!logs.stdout.includes(`fixture-output-${pid}`));
});

test('opencode: the profile model settings in its inline configuration, header values only in the environment', async () => {
  const t = await turnOf('dm:ocm', 'Hello');
  const r = recordOf(t);
  assert.deepEqual(JSON.parse(r.env.OPENCODE_CONFIG_CONTENT!), {
    share: 'disabled',
    model: 'anthropic/gateway-model',
    provider: {
      anthropic: {
        options: {
          timeout: 1000,
          baseURL: 'http://127.0.0.1:9/v1',
          apiKey: '{env:FAKE_MODEL_KEY}',
          headers: { 'X-Gateway-Team': '{env:AGENTTEAM_MODEL_HEADER_0}' },
        },
        models: { 'gateway-model': {} },
      },
    },
  });
  assert.equal(r.env.AGENTTEAM_MODEL_HEADER_0, 'opencode-header-secret');
  assert.equal(
    r.env.AGENTTEAM_MODEL_HEADER_1,
    undefined,
    'a name that is no HTTP token is not sent',
  );
  assert.ok(!r.argv.join(' ').includes('opencode-header-secret'));
  assert.ok(!(r.config ?? '').includes('opencode-header-secret'), 'nor in the driver config file');
  // An agent without a provider in its model keeps the user's inline configuration as it was.
  const plain = recordOf(await turnOf('dm:oc', 'Plain again'));
  assert.deepEqual(JSON.parse(plain.env.OPENCODE_CONFIG_CONTENT!), {
    share: 'disabled',
    provider: { anthropic: { options: { timeout: 1000 } } },
  });
  const logs = await d.cli(['daemon', 'logs', '--limit', '500']);
  assert.ok(!logs.stdout.includes('opencode-header-secret'));
});

test('opencode: a session OpenCode no longer has fails that turn, and the next one on the target starts anew', async () => {
  const known = await turnOf('dm:oc', 'Still the same session?');
  assert.equal(known.resumed, true);
  rmSync(join(records, 'sessions'), { recursive: true, force: true });
  const posted = await post(d, 'dm:oc', 'Where did it go?');
  const lost = await waitTurn(d, posted.turns[0]!.turnId);
  assert.equal(lost.state, 'failed');
  assert.equal(lost.error, 'runtime_failed');
  assert.equal(recordOf(lost).argv[recordOf(lost).argv.indexOf('--session') + 1], known.sessionId);
  const fresh = await turnOf('dm:oc', 'Start again');
  assert.match(fresh.sessionId ?? '', SESSION);
  assert.notEqual(fresh.sessionId, known.sessionId);
  assert.equal(fresh.resumed, false);
  assert.ok(!recordOf(fresh).argv.includes('--session'));
});
