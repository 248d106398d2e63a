import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { appServerRun, fakeAppServer } from '../../devkit/app-server.js';
import { openLease } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';

const sh = promisify(execFile);

/**
 * What `agentteam run --runtime codex-app-server` refuses before an app
 * server runs (a missing --prompt, a command that is not an app server, a
 * user's own `agentteam` MCP server), and the thread a runtime claims over
 * HTTP: only the driver attaches threads. The stand-in is never started.
 */
const NOT_STARTED =
  "process.stderr.write('the stand-in app server was started\\n'); process.exit(3);";

test('codex-app-server driver: what a run and its runtime may not do', async (t) => {
  const { d, dir, fake } = await fakeAppServer(t, NOT_STARTED);
  const codexHome = join(dir, 'user-codex');
  await sh('mkdir', ['-p', codexHome]);
  writeFileSync(join(codexHome, 'config.toml'), 'developer_instructions = "Mine first."\n');

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
    const r = await d.cli(appServerRun('fz', 'x', fake), { env: { CODEX_HOME: home } });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /already_exists: .*config\.toml already declares an MCP server named "agentteam"/,
    );
  });
});
