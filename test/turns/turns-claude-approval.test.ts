import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { BIN, startDaemon, startRuntime, type SpawnedDaemon } from '../../devkit/daemon.js';
import { post, waitTurn } from '../../devkit/turns.js';
import { waitFor } from '../../devkit/wait.js';
import { scriptBinary } from '../../devkit/script-binary.js';

/**
 * Claude Code's permission prompt in the approval inbox, with a stand-in
 * `claude` (test/fixtures/claude-hook/claude.mjs) that runs the
 * PermissionRequest hook of the settings file the driver passed, through a
 * shell with the hook JSON on stdin, as Claude Code 2.1.332 does (the real
 * one runs in the interop suite, `claude-approval`).
 */

const FIXTURE = fileURLToPath(
  new URL('../../../test/fixtures/claude-hook/claude.mjs', import.meta.url),
);

let d: SpawnedDaemon;
let root: string;

interface Row {
  id: string;
  status: string;
  requestedBy: string;
  native: {
    runtime: string;
    turnId: string | null;
    subagentId: string | null;
    delegated: boolean;
    kind: string;
    view: { command?: { text: string } };
  } | null;
}

async function pendingFor(agent: string): Promise<Row> {
  let row: Row | undefined;
  await waitFor(
    async () => {
      const r = await d.cli(['approval', 'list', '--status', 'pending']);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      row = (JSON.parse(r.stdout).data.approvals as Row[]).find(
        (a) => a.requestedBy === `agent:${agent}`,
      );
      return row !== undefined;
    },
    20_000,
    50,
  );
  if (!row) assert.fail(`no pending approval of ${agent}`);
  return row;
}

async function reply(target: string, messageId: string): Promise<string> {
  const r = await d.cli(['message', 'history', '--target', target]);
  const messages = JSON.parse(r.stdout).data.messages as {
    replyTo: string | null;
    content: string;
  }[];
  return messages.find((m) => m.replyTo === messageId)?.content ?? '';
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentteam-claude-approval-'));
  const work = join(root, 'work');
  const home = join(root, 'agentteam');
  for (const dir of [work, home, join(root, 'rec'), join(root, 'rec-turn')]) mkdirSync(dir);
  // The driver's options are given to a command named `claude`.
  const claude = join(root, 'claude');
  scriptBinary(claude, FIXTURE);
  const agent = (id: string, args: string[]) => ({
    id,
    runtime: 'claude',
    filesystem: { allowedPaths: [work] },
    launch: { binary: claude, args },
  });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        agent('cl', ['bash', 'echo hook-ran-1']),
        agent('sub', ['bash', 'echo from-sub', 'agent', 'sub-7']),
        agent('raw', ['raw', 'not json', 'record', join(root, 'rec')]),
        agent('rp', ['repoll', 'bash', 'echo repolled']),
        agent('tw', ['bash', 'echo turn-wide', 'record', join(root, 'rec-turn')]),
        agent('fl', ['flood', '17']),
      ],
      teams: [],
    }),
  );
  d = await startDaemon({ home });
});
after(async () => {
  await d?.close();
  rmSync(root, { recursive: true, force: true });
});

test('a delivered turn: the prompt lands in the inbox; approve → the command runs', async () => {
  const posted = await post(d, 'dm:cl', 'Run it');
  const asked = await pendingFor('cl');
  assert.equal(asked.native?.runtime, 'claude');
  assert.equal(asked.native?.kind, 'command');
  assert.equal(asked.native?.turnId, posted.turns[0]!.turnId);
  assert.equal(asked.native?.subagentId, null);
  assert.equal(asked.native?.delegated, false);
  assert.equal(asked.native?.view.command?.text, 'echo hook-ran-1');
  const decided = await d.cli(['approval', 'decide', asked.id, 'approve']);
  assert.equal(decided.code, 0, decided.stderr + decided.stdout);
  const t = await waitTurn(d, posted.turns[0]!.turnId);
  assert.equal(t.state, 'succeeded', JSON.stringify(t));
  assert.equal(await reply('dm:cl', posted.message.id), 'ran: hook-ran-1');
});

test('deny: the command does not run and the runtime is told why', async () => {
  const posted = await post(d, 'dm:cl', 'Run it again');
  const asked = await pendingFor('cl');
  const decided = await d.cli(['approval', 'decide', asked.id, 'reject', '--note', 'not today']);
  assert.equal(decided.code, 0, decided.stderr + decided.stdout);
  await waitTurn(d, posted.turns[0]!.turnId);
  assert.equal(
    await reply('dm:cl', posted.message.id),
    `denied: agentteam: denied by human:operator: not today (${asked.id})`,
  );
});

test('approve for the turn: Claude Code is given its own suggestions, kept for this session only', async () => {
  const posted = await post(d, 'dm:tw', 'Keep going');
  const asked = await pendingFor('tw');
  const decided = await d.cli(['approval', 'decide', asked.id, 'approve', '--for-turn']);
  assert.equal(decided.code, 0, decided.stderr + decided.stdout);
  await waitTurn(d, posted.turns[0]!.turnId);
  assert.equal(await reply('dm:tw', posted.message.id), 'ran: turn-wide');
  const hook = JSON.parse(readFileSync(join(root, 'rec-turn', 'hook.json'), 'utf8'));
  assert.deepEqual(JSON.parse(hook.stdout), {
    hookSpecificOutput: {
      hookEventName: 'PermissionRequest',
      decision: {
        behavior: 'allow',
        updatedPermissions: [
          {
            type: 'addRules',
            rules: [{ toolName: 'Bash', ruleContent: 'echo turn-wide' }],
            behavior: 'allow',
            destination: 'session',
          },
        ],
      },
    },
  });
});

test("a subagent's request records its agent_id and says it is delegated", async () => {
  const posted = await post(d, 'dm:sub', 'Delegate it');
  const asked = await pendingFor('sub');
  assert.equal(asked.native?.subagentId, 'sub-7');
  assert.equal(asked.native?.delegated, true);
  await d.cli(['approval', 'decide', asked.id, 'approve']);
  await waitTurn(d, posted.turns[0]!.turnId);
  assert.equal(await reply('dm:sub', posted.message.id), 'ran: from-sub');
});

test('bad hook input: exit 2 with the reason, nothing filed', async () => {
  const posted = await post(d, 'dm:raw', 'Break it');
  await waitTurn(d, posted.turns[0]!.turnId);
  const hook = JSON.parse(readFileSync(join(root, 'rec', 'hook.json'), 'utf8'));
  assert.equal(hook.status, 2);
  assert.equal(JSON.parse(hook.stdout).error.code, 'usage');
  assert.match(hook.stderr, /agentteam approval hook: stdin is not one JSON value/);
  const list = await d.cli(['approval', 'list']);
  assert.ok(!list.stdout.includes('agent:raw'));
});

test('one key files once: two polls at once get the one decision; another body under it is refused', async () => {
  const posted = await post(d, 'dm:rp', 'Poll it');
  const asked = await pendingFor('rp');
  const decided = await d.cli(['approval', 'decide', asked.id, 'approve']);
  assert.equal(decided.code, 0, decided.stderr);
  await waitTurn(d, posted.turns[0]!.turnId);
  // Both polls are over once the turn has ended: every row this runtime filed, whatever its status.
  const list = await d.cli(['approval', 'list']);
  const mine = (JSON.parse(list.stdout).data.approvals as Row[]).filter(
    (a) => a.requestedBy === 'agent:rp',
  );
  assert.equal(mine.length, 1, 'the second poll filed nothing');
  assert.equal(
    await reply('dm:rp', posted.message.id),
    'repoll: decided:approved decided:approved error:idempotency_conflict',
  );
});

test('at most 16 requests of one runtime wait at once: the 17th is busy and files nothing', async () => {
  const posted = await post(d, 'dm:fl', 'Ask a lot');
  await waitTurn(d, posted.turns[0]!.turnId);
  assert.match(
    await reply('dm:fl', posted.message.id),
    /^flood: error:busy: 16 permission requests of this runtime already wait for a decision$/,
  );
  const list = await d.cli(['approval', 'list']);
  const mine = (JSON.parse(list.stdout).data.approvals as Row[]).filter(
    (a) => a.requestedBy === 'agent:fl',
  );
  assert.equal(mine.length, 16, 'the refused one filed nothing');
  // The turn ended with them waiting: every one is cancelled, none left pending.
  assert.deepEqual([...new Set(mine.map((a) => a.status))], ['cancelled']);
});

test('the hook input limit: 1 MiB is read, one byte more exits 2 before anything is sent', () => {
  const mib = 1024 * 1024;
  const head = '{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"pad":"';
  const tail = '"}}';
  const exact = head + 'x'.repeat(mib - head.length - tail.length) + tail;
  const env = { ...process.env, AGENTTEAM_EXEC_BASE_URL: '', AGENTTEAM_EXEC_TOKEN_FILE: '' };
  const run = (input: string) =>
    spawnSync(process.execPath, [BIN, 'approval', 'hook'], { input, env, encoding: 'utf8' });
  const ok = run(exact);
  assert.equal(Buffer.byteLength(exact), mib);
  // Read and parsed: without credentials it fails closed with a denial, not a usage error.
  assert.equal(ok.status, 0, ok.stderr);
  const decision = JSON.parse(ok.stdout).hookSpecificOutput.decision;
  assert.equal(decision.behavior, 'deny');
  assert.match(decision.message, /no daemon credentials/);
  const over = run(`${exact} `);
  assert.equal(over.status, 2);
  assert.equal(JSON.parse(over.stdout).error.code, 'usage');
  assert.match(over.stderr, /larger than 1048576 bytes/);
  const other = run('{"hook_event_name":"PreToolUse","tool_name":"Bash"}');
  assert.equal(other.status, 2);
  assert.match(other.stderr, /answers PermissionRequest events, not "PreToolUse"/);
});

test('the route: another runtime is refused; a Claude run with no delivered turn is told to pass', async () => {
  const generic = await startRuntime(d, { server: 'local', agent: 'g1' });
  const body = JSON.stringify({
    key: 'route-key-0001',
    toolName: 'Bash',
    toolInput: { command: 'ls' },
  });
  const call = (base: string, token: string) =>
    fetch(`${base}/native-approval`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
  try {
    const res = await call(generic.base, generic.token());
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'forbidden');
  } finally {
    await generic.close();
  }
  const claude = join(root, 'claude-idle');
  writeFileSync(
    claude,
    `#!${process.execPath}\nprocess.stdout.write(JSON.stringify({env:process.env,argv:process.argv.slice(1),pid:process.pid})+"\\n");setInterval(()=>{},1e6)\n`,
    { mode: 0o755 },
  );
  const person = await startRuntime(d, {
    server: 'local',
    agent: 'c1',
    runtime: 'claude',
    command: [claude],
  });
  try {
    const res = await call(person.base, person.token());
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, data: { status: 'pass' } });
  } finally {
    await person.close();
  }
});
