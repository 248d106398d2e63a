import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { BIN, startDaemon, type Daemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';

const sh = promisify(execFile);

/**
 * A stand-in for `codex app-server` that speaks its JSON-RPC protocol
 * (line-delimited, as Codex 0.171 does; the real one runs in the interop
 * suite). After turn/start it plays a fixed run: the primary thread sends,
 * announces a spawned agent the way Codex does (a subAgentActivity item in
 * the primary thread), and then the calls a model could make from the child,
 * from a thread nobody announced, and with a thread claimed in the
 * arguments. It records what it got back in $FAKE_OUT.
 */
const FAKE = `
const { createInterface } = require('node:readline');
const { writeFileSync } = require('node:fs');
const out = { argv: process.argv.slice(2), tokenFile: process.env.AGENTTEAM_EXEC_TOKEN_FILE || null, mine: process.env.FAKE_MINE || null, agentteam: (process.env.PATH || '').split(':').map((d) => d + '/agentteam').find((f) => require('node:fs').existsSync(f)) || null, answers: [] };
let next = 1000; const waiting = new Map(); let threadStart = null;
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const ask = (method, params) => new Promise((r) => { const id = next++; waiting.set(id, r); send({ id, method, params }); });
const tool = (threadId, name, args, namespace = 'agentteam') => ask('item/tool/call', { threadId, turnId: 't1', callId: 'c' + next, namespace, tool: name, arguments: args });
async function play() {
  send({ method: 'turn/started', params: { threadId: 'thr-P', turn: { id: 't1' } } });
  out.answers.push(['primary send', await tool('thr-P', 'message_send', { target: 'channel:fake', content: 'from the primary' })]);
  send({ method: 'item/started', params: { threadId: 'thr-P', turnId: 't1', item: { type: 'subAgentActivity', id: 's1', kind: 'started', agentThreadId: 'thr-C', agentPath: '/root/reader' } } });
  send({ method: 'thread/status/changed', params: { threadId: 'thr-C', status: { type: 'active', activeFlags: [] } } });
  out.answers.push(['child send', await tool('thr-C', 'message_send', { target: 'channel:fake', content: 'from the child' })]);
  out.answers.push(['child read', await tool('thr-C', 'message_history_read', { target: 'channel:fake' })]);
  out.answers.push(['stranger read', await tool('thr-X', 'message_history_read', { target: 'channel:fake' })]);
  out.answers.push(['child claims primary', await tool('thr-C', 'message_send', { target: 'channel:fake', content: 'claimed', _meta: { 'agentteam/threadId': 'thr-P' } })]);
  out.answers.push(['other namespace', await tool('thr-P', 'message_send', { target: 'channel:fake', content: 'x' }, 'elsewhere')]);
  out.answers.push(['approval', await ask('item/commandExecution/requestApproval', { threadId: 'thr-P', turnId: 't1', itemId: 'i1', command: 'rm -rf /' })]);
  send({ method: 'item/completed', params: { threadId: 'thr-P', turnId: 't1', item: { type: 'agentMessage', id: 'm1', text: 'all done' } } });
  send({ method: 'turn/completed', params: { threadId: 'thr-P', turn: { id: 't1', status: 'completed', error: null } } });
  await new Promise((r) => setTimeout(r, 300));
  send({ method: 'thread/status/changed', params: { threadId: 'thr-C', status: { type: 'idle' } } });
}
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) { waiting.get(m.id)(m.result ?? { error: m.error }); waiting.delete(m.id); return; }
  if (m.method === 'initialize') return send({ id: m.id, result: { userAgent: 'fake/0.171.0' } });
  if (m.method === 'thread/start') { out.threadStart = m.params; send({ id: m.id, result: { thread: { id: 'thr-P' } } }); return send({ method: 'thread/started', params: { thread: { id: 'thr-P' } } }); }
  if (m.method === 'turn/start') { out.turnStart = m.params; send({ id: m.id, result: { turn: { id: 't1' } } }); return void play(); }
});
rl.on('close', () => { writeFileSync(process.env.FAKE_OUT, JSON.stringify(out)); process.exit(0); });
`;

type Answer = { contentItems: { type: string; text: string }[]; success: boolean };

test('codex-app-server driver: threads from the app server, the gate by thread role', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-fake-app-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = join(dir, 'codex');
  writeFileSync(fake, `#!${process.execPath}\n${FAKE}`, { mode: 0o755 });
  const codexHome = join(dir, 'user-codex');
  await sh('mkdir', ['-p', codexHome]);
  writeFileSync(join(codexHome, 'config.toml'), 'developer_instructions = "Mine first."\n');

  await t.test(
    'agentteam run drives the app server; every call is decided by the thread Codex named',
    async () => {
      const outFile = join(dir, 'out.json');
      const r = await sh(
        process.execPath,
        [
          BIN,
          'run',
          '--server',
          'local',
          '--agent',
          'fx',
          '--runtime',
          'codex-app-server',
          '--prompt',
          'hello there',
          '--',
          fake,
          'app-server',
          '--listen',
          'stdio://',
        ],
        {
          env: {
            ...process.env,
            AGENTTEAM_HOME: d.home,
            CODEX_HOME: codexHome,
            FAKE_OUT: outFile,
            FAKE_MINE: 'kept',
          },
          timeout: 30_000,
        },
      );
      assert.match(r.stdout, /^all done$/m, r.stderr);
      assert.match(r.stderr, /primary thread thr-P/);
      assert.match(r.stderr, /child thread thr-C \(spawned by thr-P\)/);
      const out = JSON.parse(readFileSync(outFile, 'utf8')) as {
        argv: string[];
        tokenFile: string | null;
        mine: string | null;
        agentteam: string | null;
        answers: [string, Answer][];
        threadStart: {
          developerInstructions: string;
          dynamicTools: { type: string; name: string; tools: { name: string }[] }[];
          cwd: string;
        };
        turnStart: { threadId: string; input: { type: string; text: string }[] };
      };
      assert.deepEqual(out.argv, [
        '-c',
        'features.multi_agent_v2_dynamic_tools=true',
        'app-server',
        '--listen',
        'stdio://',
      ]);
      assert.ok(out.tokenFile, 'the app server gets the runtime environment');
      assert.equal(out.mine, 'kept', "and the user's own");
      // The daemon's own agentteam comes first on the app server's PATH, as for every driver.
      assert.match(out.agentteam ?? '', /\/runtime\/[0-9a-f]{32}\/bin\/agentteam$/);
      assert.match(out.threadStart.developerInstructions, /^Mine first\.\n\n# AgentTeam tools/);
      assert.match(out.threadStart.developerInstructions, /`agentteam__message_send`/);
      assert.deepEqual(
        out.threadStart.dynamicTools.map((x) => [x.type, x.name]),
        [['namespace', 'agentteam']],
      );
      assert.deepEqual(
        out.threadStart.dynamicTools[0]!.tools.map((x) => x.name).sort(),
        MCP_TOOLS.map((x) => x.name).sort(),
      );
      assert.deepEqual(out.turnStart, {
        threadId: 'thr-P',
        input: [{ type: 'text', text: 'hello there' }],
      });
      const a = new Map(out.answers);
      const text = (k: string) =>
        a
          .get(k)
          ?.contentItems.map((c) => c.text)
          .join('') ?? '';
      assert.equal(a.get('primary send')?.success, true, text('primary send'));
      assert.match(text('primary send'), /"content":"from the primary"/);
      assert.equal(a.get('child send')?.success, false);
      assert.match(text('child send'), /not available to a delegated child thread/);
      assert.match(text('child send'), /return your result to your leader/);
      assert.equal(a.get('child read')?.success, true, text('child read'));
      assert.match(text('child read'), /"content":"from the primary"/);
      assert.doesNotMatch(
        text('child read'),
        /from the child|claimed/,
        'nothing the child tried landed',
      );
      assert.equal(a.get('stranger read')?.success, false);
      assert.match(text('stranger read'), /neither this run's primary thread nor one it spawned/);
      assert.equal(a.get('child claims primary')?.success, false);
      assert.match(text('child claims primary'), /differs from the thread its driver attached/);
      assert.equal(a.get('other namespace')?.success, false);
      assert.deepEqual(a.get('approval'), { decision: 'decline' });
      const log = readFileSync(join(d.home, 'daemon.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"codex_'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const gate = log
        .filter((l) => l.event === 'codex_tool_gate')
        .map((l) => [l.threadId, l.role, l.tool, l.decision]);
      assert.deepEqual(gate.slice(0, 5), [
        ['thr-P', 'primary', 'message_send', 'allowed'],
        ['thr-C', 'child', 'message_send', 'refused'],
        ['thr-C', 'child', 'message_history_read', 'allowed'],
        ['thr-X', 'unknown', 'message_history_read', 'refused'],
        ['thr-C', 'child', 'message_send', 'refused'],
      ]);
      assert.ok(
        log.some(
          (l) =>
            l.event === 'codex_thread' && l.threadId === 'thr-C' && l.parentThreadId === 'thr-P',
        ),
      );
      const history = await d.cli(['message', 'history', '--target', 'channel:fake']);
      assert.match(history.stdout, /from the primary/);
      assert.doesNotMatch(history.stdout, /from the child|claimed/);
    },
  );

  await t.test(
    '--prompt goes with codex-app-server, and the command must be an app server',
    async () => {
      const noPrompt = await d.cli([
        'run',
        '--server',
        'local',
        '--agent',
        'fx',
        '--runtime',
        'codex-app-server',
        '--',
        fake,
        'app-server',
      ]);
      assert.equal(noPrompt.code, 2);
      assert.match(noPrompt.stderr, /needs --prompt/);
      const stray = await d.cli([
        'run',
        '--server',
        'local',
        '--agent',
        'fx',
        '--prompt',
        'x',
        '--',
        'true',
      ]);
      assert.equal(stray.code, 2);
      const notServer = await d.cli(
        [
          'run',
          '--server',
          'local',
          '--agent',
          'fx',
          '--runtime',
          'codex-app-server',
          '--prompt',
          'x',
          '--',
          fake,
          'exec',
        ],
        { env: { CODEX_HOME: codexHome } },
      );
      assert.equal(notServer.code, 1);
      assert.match(notServer.stderr, /must run `codex app-server`/);
    },
  );

  await t.test(
    'over HTTP, a thread claimed by the runtime is refused: the driver attaches threads',
    async () => {
      const lease = await openLease(d, {
        serverId: 'local',
        agentId: 'fy',
        runtime: 'codex-app-server',
        env: { CODEX_HOME: codexHome },
      });
      t.after(() => lease.close());
      const call = (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
        rpc(
          lease.mcpUrl,
          lease.token(),
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'message_history_read',
              arguments: { target: 'channel:fake' },
              ...extra,
            },
          },
          headers,
        );
      for (const [extra, headers] of [
        [{ _meta: { 'agentteam/threadId': 'thr-P' } }, {}],
        [{}, { 'x-agentteam-thread-id': 'thr-P' }],
      ] as const) {
        const body = JSON.parse((await call(extra, headers)).body) as {
          result: { isError: boolean; content: { text: string }[] };
        };
        assert.equal(body.result.isError, true);
        assert.match(body.result.content[0]!.text, /differs from the thread its driver attached/);
      }
      const plain = JSON.parse((await call({})).body) as { result: { isError: boolean } };
      assert.equal(
        plain.result.isError,
        false,
        'no claim: the runtime process itself, as on the Exec route',
      );
      const exec = lease.mcpUrl.replace('/api/internal/mcp/', '/api/internal/exec/');
      const headers = {
        authorization: `Bearer ${lease.token()}`,
        'content-type': 'application/json',
      };
      const claimed = await rawRequest(
        `${exec}/task/list`,
        'POST',
        { ...headers, 'x-agentteam-thread-id': 'thr-P' },
        '{}',
      );
      assert.equal(claimed.status, 403, claimed.body);
      assert.match(claimed.body, /differs from the thread its driver attached/);
      assert.equal((await rawRequest(`${exec}/task/list`, 'POST', headers, '{}')).status, 200);
    },
  );

  await t.test("a user's own agentteam MCP server is a conflict here too", async () => {
    const home = join(dir, 'conflicting');
    await sh('mkdir', ['-p', home]);
    writeFileSync(
      join(home, 'config.toml'),
      '[mcp_servers.agentteam]\nurl = "http://127.0.0.1:9/mcp"\n',
    );
    const r = await d.cli(
      [
        'run',
        '--server',
        'local',
        '--agent',
        'fz',
        '--runtime',
        'codex-app-server',
        '--prompt',
        'x',
        '--',
        fake,
        'app-server',
      ],
      { env: { CODEX_HOME: home } },
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /already_exists: .*config\.toml already declares an MCP server named "agentteam"/,
    );
  });
});
