import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'smol-toml';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { BIN, startDaemon, type Daemon } from '../../devkit/daemon.js';
import { openLease } from '../../devkit/lease.js';
import { operatorCall, rpc } from '../../devkit/http.js';

const sh = promisify(execFile);

/** The `-c key=value` pairs of a Codex launch, values parsed as Codex parses them (TOML). */
function overrides(args: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i += 2) {
    assert.equal(args[i], '-c', `argument ${i} of ${JSON.stringify(args)}`);
    const kv = args[i + 1] ?? '';
    const eq = kv.indexOf('=');
    out[kv.slice(0, eq)] = (parse(`v = ${kv.slice(eq + 1)}`) as { v: unknown }).v;
  }
  return out;
}

const USER_CONFIG = [
  'model_provider = "mine"',
  'approval_policy = "on-request"',
  'developer_instructions = "Mine: always answer in haiku."',
  '[model_providers.mine]',
  'name = "mine"',
  'base_url = "http://127.0.0.1:9/v1"',
  '[mcp_servers.other]',
  'command = "other-server"',
  '',
].join('\n');

function userHome(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-user-codex-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
  return home;
}

test("codex driver: agentteam layered over the user's own Codex home", async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());

  await t.test("-c overrides only; CODEX_HOME and the user's files untouched", async (t) => {
    const home = userHome(t, {
      'config.toml': USER_CONFIG,
      'work.config.toml': 'model = "gpt-5"\n',
    });
    const before = statSync(join(home, 'config.toml'));
    const lease = await openLease(d, {
      serverId: 'local',
      agentId: 'cx1',
      runtime: 'codex',
      env: { CODEX_HOME: home },
      runtimeVersion: 'codex-cli 0.171.0',
    });
    t.after(() => lease.close());
    assert.equal(lease.data.env.CODEX_HOME, undefined, "the runtime keeps the user's CODEX_HOME");
    assert.equal(lease.data.argsFor, 'codex');
    const o = overrides(lease.data.args);
    assert.deepEqual(
      Object.keys(o),
      [
        'mcp_servers.agentteam.url',
        'mcp_servers.agentteam.http_headers_helper',
        'mcp_servers.agentteam.default_tools_approval_mode',
        'developer_instructions',
      ],
      "agentteam's entries and nothing else: no provider, approval policy or other server of the user's is overridden",
    );
    assert.equal(o['mcp_servers.agentteam.url'], lease.mcpUrl);
    assert.equal(o['mcp_servers.agentteam.default_tools_approval_mode'], 'approve');
    const guidance = readFileSync(lease.data.env.AGENTTEAM_GUIDANCE_FILE ?? '', 'utf8');
    assert.equal(
      o.developer_instructions,
      `Mine: always answer in haiku.\n\n${guidance}`,
      "the user's instructions first, then the guidance",
    );
    for (const tool of MCP_TOOLS)
      assert.ok(guidance.includes(`mcp__agentteam__${tool.name}`), tool.name);
    // The helper is a program Codex runs per connection: it prints the current token, rotation included.
    const helper = o['mcp_servers.agentteam.http_headers_helper'] as string;
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(JSON.parse((await sh(helper, [])).stdout), {
        Authorization: `Bearer ${lease.token()}`,
      });
      assert.equal(
        (await rpc(lease.mcpUrl, lease.token(), { jsonrpc: '2.0', id: 1, method: 'tools/list' }))
          .status,
        200,
      );
      await operatorCall(d, 'POST', `/api/v1/runtimes/${lease.data.authorizationId}/rotate`);
    }
    assert.ok(!lease.data.args.join(' ').includes(lease.token()), 'no token on the command line');
    assert.equal(readFileSync(join(home, 'config.toml'), 'utf8'), USER_CONFIG);
    assert.equal(statSync(join(home, 'config.toml')).mtimeMs, before.mtimeMs);
    // The shim for wrapped commands carries the same overrides.
    const shim = readFileSync(join(lease.data.shimDir ?? '', 'codex'), 'utf8');
    assert.match(shim, /^exec codex '-c' 'mcp_servers\.agentteam\.url=/m);
  });

  await t.test('no user config at all: the guidance alone', async (t) => {
    const home = join(userHome(t, {}), 'missing');
    const lease = await openLease(d, {
      serverId: 'local',
      agentId: 'cx2',
      runtime: 'codex',
      env: { CODEX_HOME: home },
      runtimeVersion: 'codex-cli 0.171.0',
    });
    t.after(() => lease.close());
    const o = overrides(lease.data.args);
    assert.ok(String(o.developer_instructions).startsWith('# AgentTeam tools'));
  });

  await t.test(
    "a user's own agentteam MCP server is a conflict, in config.toml or a profile file",
    async (t) => {
      for (const [file, text] of [
        [
          'config.toml',
          `${USER_CONFIG}[mcp_servers.agentteam]\nurl = "http://example.invalid/mcp"\n`,
        ],
        ['work.config.toml', '[mcp_servers.agentteam]\ncommand = "mine"\n'],
      ] as const) {
        const home = userHome(
          t,
          file === 'config.toml' ? { [file]: text } : { 'config.toml': USER_CONFIG, [file]: text },
        );
        const r = await operatorCall(d, 'POST', '/api/v1/runtimes', {
          serverId: 'local',
          agentId: 'cx3',
          runtime: 'codex',
          env: { CODEX_HOME: home },
        });
        assert.equal(r.status, 409, r.body);
        const e = JSON.parse(r.body).error as {
          code: string;
          message: string;
          metadata: { file: string; conflict: string };
        };
        assert.equal(e.code, 'already_exists');
        assert.equal(e.metadata.file, join(home, file));
        assert.equal(e.metadata.conflict, 'mcp_servers.agentteam');
        assert.match(e.message, /already declares an MCP server named "agentteam"/);
        assert.equal(readFileSync(join(home, file), 'utf8'), text, 'the file is only read');
      }
      const bad = userHome(t, { 'config.toml': 'model = \n' });
      const r = await operatorCall(d, 'POST', '/api/v1/runtimes', {
        serverId: 'local',
        agentId: 'cx4',
        runtime: 'codex',
        env: { CODEX_HOME: bad },
      });
      assert.equal(r.status, 400, r.body);
      assert.match(JSON.parse(r.body).error.message, /is not valid TOML/);
    },
  );

  await t.test(
    'a Codex older than the header helper reads the bearer from a variable run sets from the token file',
    async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'agentteam-old-codex-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const home = join(dir, 'user-codex');
      mkdirSync(home);
      writeFileSync(join(home, 'config.toml'), USER_CONFIG);
      const codex = join(dir, 'codex');
      writeFileSync(
        codex,
        `#!/bin/sh\n[ "$1" = --version ] && { echo 'codex-cli 0.99.0'; exit 0; }\nprintf '%s\\n' "bearer=$AGENTTEAM_CODEX_BEARER" "token=$(cat "$AGENTTEAM_EXEC_TOKEN_FILE")" "home=$CODEX_HOME" "$@"\n`,
        { mode: 0o755 },
      );
      for (const wrapped of [false, true]) {
        const cmd = wrapped ? ['sh', '-c', 'codex exec hi'] : [codex, 'exec', 'hi'];
        const r = await sh(
          process.execPath,
          [BIN, 'run', '--server', 'local', '--agent', 'cx5', '--runtime', 'codex', '--', ...cmd],
          {
            env: {
              ...process.env,
              AGENTTEAM_HOME: d.home,
              CODEX_HOME: home,
              PATH: `${dir}:${process.env.PATH}`,
            },
            timeout: 15_000,
          },
        );
        const lines = r.stdout.split('\n');
        const token = lines.find((l) => l.startsWith('token='))?.slice(6);
        assert.ok(token && token.length > 20, r.stdout);
        assert.equal(
          lines.find((l) => l.startsWith('bearer=')),
          `bearer=${token}`,
          `${wrapped ? 'the shim' : 'run'} sets the bearer`,
        );
        assert.equal(
          lines.find((l) => l.startsWith('home=')),
          `home=${home}`,
        );
        assert.ok(
          lines.includes('mcp_servers.agentteam.bearer_token_env_var="AGENTTEAM_CODEX_BEARER"'),
          r.stdout,
        );
        assert.ok(!lines.some((l) => l.includes('http_headers_helper')), r.stdout);
        assert.deepEqual(
          lines.slice(-3, -1),
          ['exec', 'hi'],
          "the user's own arguments come after the overrides",
        );
      }
    },
  );
});
