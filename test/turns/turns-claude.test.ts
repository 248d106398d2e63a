import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { post, waitTurn } from '../../devkit/turns.js';

/**
 * A Claude agent's turns as the daemon starts them (a stand-in `claude`
 * that records its arguments, the model variables and its stdin; the real
 * Claude Code runs in the interop suite): print mode, the prompt on stdin,
 * the driver's MCP configuration and settings (agentteam's tools allowed,
 * the user's settings untouched), the profile's model, endpoint and key,
 * a new session named by the turn and resumed by the next one on the target.
 */

let d: SpawnedDaemon;
let root: string;
let records: string;

const FAKE_CLAUDE = `
const { readFileSync, writeFileSync } = require('node:fs');
const a = process.argv.slice(2);
const settings = a.includes('--settings') ? readFileSync(a[a.indexOf('--settings') + 1], 'utf8') : null;
writeFileSync(process.env.FAKE_RECORD + '/' + process.pid + '.json', JSON.stringify({
  argv: a, settings, stdin: readFileSync(0, 'utf8'),
  baseUrl: process.env.ANTHROPIC_BASE_URL ?? null, apiKey: process.env.ANTHROPIC_API_KEY ?? null,
  headers: process.env.ANTHROPIC_CUSTOM_HEADERS ?? null,
}));
`;

interface Rec {
  argv: string[];
  settings: string | null;
  stdin: string;
  baseUrl: string | null;
  apiKey: string | null;
  headers: string | null;
}

async function recorded(n: number): Promise<Rec[]> {
  for (let i = 0; i < 200; i++) {
    const files = readdirSync(records).sort();
    if (files.length >= n)
      return files.map((f) => JSON.parse(readFileSync(join(records, f), 'utf8')) as Rec);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`fewer than ${n} claude runs recorded`);
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentteam-turns-claude-'));
  records = join(root, 'records');
  const work = join(root, 'work');
  const home = join(root, 'agentteam');
  for (const dir of [records, work, home]) mkdirSync(dir);
  const claude = join(root, 'claude');
  writeFileSync(claude, `#!${process.execPath}\n${FAKE_CLAUDE}`, { mode: 0o755 });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'cl',
          runtime: 'claude',
          model: 'sonnet',
          baseUrl: 'http://127.0.0.1:9',
          apiKeyEnv: 'FAKE_ANTHROPIC_KEY',
          headers: {
            'X-Gateway-Team': 'claude-header-secret',
            'X-Route': 'eu',
            'X-Injected': 'a\nX-Evil: 1',
          },
          filesystem: { allowedPaths: [work] },
          launch: { binary: claude, args: ['--verbose'] },
        },
      ],
      teams: [],
    }),
  );
  d = await startDaemon({
    home,
    env: {
      FAKE_RECORD: records,
      FAKE_ANTHROPIC_KEY: 'sk-fake-key',
      ANTHROPIC_CUSTOM_HEADERS: 'X-User-Own: mine',
    },
  });
});
after(async () => {
  await d?.close();
  rmSync(root, { recursive: true, force: true });
});

test('claude: print mode, prompt on stdin, agentteam tools allowed, the profile model settings, resume', async () => {
  const first = await post(d, 'dm:cl', 'Hello there');
  const t1 = await waitTurn(d, first.turns[0]!.turnId);
  assert.equal(t1.state, 'succeeded', JSON.stringify(t1));
  assert.equal(t1.resumed, false);
  const [r1] = await recorded(1);
  const a = r1!.argv;
  assert.equal(a[a.indexOf('--session-id') + 1], t1.sessionId);
  assert.ok(a.includes('-p'));
  assert.ok(a.includes('--mcp-config'));
  assert.equal(a[a.indexOf('--model') + 1], 'sonnet');
  assert.equal(a.at(-1), '--verbose', 'launch.args come last');
  const settings = JSON.parse(r1!.settings ?? 'null');
  assert.deepEqual(settings.permissions, { allow: ['mcp__agentteam'] });
  // Every permission prompt goes to this runtime's own agentteam, which files it in the approval inbox.
  const [hook] = settings.hooks.PermissionRequest;
  assert.equal(hook.matcher, '*');
  assert.equal(hook.hooks.length, 1);
  assert.equal(hook.hooks[0].type, 'command');
  assert.match(hook.hooks[0].command, /^'\/.+\/bin\/agentteam' approval hook$/);
  assert.ok(hook.hooks[0].timeout >= 3600, 'the hook outlives the inbox deadline');
  assert.match(
    r1!.stdin,
    new RegExp(`exactly this target: dm:cl, with replyTo set to ${first.message.id}`),
  );
  assert.equal(r1!.baseUrl, 'http://127.0.0.1:9');
  assert.equal(r1!.apiKey, 'sk-fake-key');
  // The user's own headers first, then the profile's, one a line; a value that would break the line is not sent.
  assert.equal(r1!.headers, 'X-User-Own: mine\nX-Gateway-Team: claude-header-secret\nX-Route: eu');
  assert.ok(!a.join(' ').includes('claude-header-secret'), 'no header value on the command line');

  const second = await post(d, 'dm:cl', 'Again');
  const t2 = await waitTurn(d, second.turns[0]!.turnId);
  assert.equal(t2.resumed, true);
  assert.equal(t2.sessionId, t1.sessionId);
  const r2 = (await recorded(2)).find((r) => r.argv.includes('--resume'))!;
  assert.equal(r2.argv[r2.argv.indexOf('--resume') + 1], t1.sessionId);
  assert.ok(!r2.argv.includes('--session-id'));
});

test('claude: header values reach no log', async () => {
  const logs = await d.cli(['daemon', 'logs', '--limit', '500']);
  assert.equal(logs.code, 0, logs.stderr);
  assert.ok(!logs.stdout.includes('claude-header-secret'));
});
