import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLease } from '../../devkit/lease.js';
import { rawRequest, rpc } from '../../devkit/http.js';
import { prepareHome } from '../../devkit/tools.js';
import { assertNoLeak } from '../../devkit/gate-property.js';

/**
 * Regressions of the result gate through a real daemon: a secret found by
 * searching for a piece of it, a secret in a line longer than a page, a
 * failing declared tool's stderr cut after masking, and daemon.log masking
 * every kind of secret the gate knows.
 */

let rpcId = 0;
const toolCall = (url: string, token: string, name: string, args: Record<string, unknown>) =>
  rpc(url, token, {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'tools/call',
    params: { name, arguments: args },
  });

const GH = 'ghp_0123456789abcdefghijABCDEFGHIJ012345';

/** A daemon with GITHUB_TOKEN in its environment, the same value in a note and a kb document, and a bound runtime. */
async function tokenHome(
  t: import('node:test').TestContext,
  setup: (home: string) => void = () => undefined,
) {
  const h = await prepareHome(t, {
    env: { GITHUB_TOKEN: GH },
    setup: (home) => {
      mkdirSync(join(home, 'memory', 'a1'), { recursive: true });
      mkdirSync(join(home, 'kb'), { recursive: true });
      const doc = `# Release notes\n\nThe deploy uses ${GH} for the registry.\n`;
      writeFileSync(join(home, 'memory', 'a1', 'release.md'), doc);
      writeFileSync(join(home, 'kb', 'release.md'), doc);
      setup(home);
    },
  });
  const human = await h.op('POST', '/api/v1/messages', {
    serverId: 'local',
    target: 'channel:general',
    author: 'human:ann',
    content: 'where is the token',
  });
  const messageId = (JSON.parse(human.body) as { data: { message: { id: string } } }).data.message
    .id;
  const lease = await openLease(h as never, {
    serverId: 'local',
    agentId: 'a1',
    turnTarget: 'channel:general',
    turnMessageId: messageId,
  });
  t.after(() => lease.close());
  const call = async (name: string, args: Record<string, unknown>) => {
    for (let i = 0; i < 100; i++) {
      const r = await toolCall(lease.mcpUrl, lease.token(), name, args);
      if (!r.body.includes('index_unavailable')) return r.body;
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error('the index never became ready');
  };
  return { h, call };
}

test('regression: kb_search and memory_search for "ghp" or the token\'s body show the token masked, never "[ghp]_0123…" or "ghp_[…]"', async (t) => {
  const { call } = await tokenHome(t);
  for (const tool of ['kb_search', 'memory_search']) {
    for (const query of ['ghp', GH.slice(4), 'ghp*', GH.slice(4, 20), 'registry']) {
      const body = await call(tool, { query });
      assertNoLeak(GH, body, `${tool} ${query}`);
      if (query === 'registry')
        assert.match(
          body,
          /\[GITHUB_TOKEN\] for the \[registry\]/,
          `${tool}: the name stands where the token was`,
        );
    }
  }
});

test('regression: kb_fetch pages of a line far longer than a page never split a secret, alone or reassembled', async (t) => {
  // The token straddles every page boundary a byte cut would choose: 8 KiB pages, token at 8 KiB - 10.
  const line = `${'a'.repeat(8192 - 10)}${GH}${'b'.repeat(8192 * 2)}${GH}${'c'.repeat(300)}`;
  const { call } = await tokenHome(t, (home) =>
    writeFileSync(join(home, 'kb', 'long.md'), `${line}\n`),
  );
  let cursor: string | undefined;
  let whole = '';
  let pages = 0;
  for (;;) {
    const body = await call('kb_fetch', { docId: 'long.md', ...(cursor ? { cursor } : {}) });
    assertNoLeak(GH, body, `kb_fetch page ${pages}`);
    const data = (
      JSON.parse(body) as {
        result: { structuredContent: { text: string; hasMore: boolean; nextCursor?: string } };
      }
    ).result.structuredContent;
    whole += data.text;
    pages++;
    if (!data.hasMore) break;
    cursor = data.nextCursor;
  }
  assert.ok(pages >= 3, `${pages} pages`);
  assertNoLeak(GH, whole, 'the pages joined');
  assert.equal(
    whole,
    `${line.replaceAll(GH, '[GITHUB_TOKEN]')}\n`,
    'nothing lost: the document, masked',
  );
});

test("regression: a failing declared tool's stderr (curl -v printing Authorization) is masked before its tail is cut", async (t) => {
  const bearer = 'Bearer-9f8e7d6c5b4a39281706f5e4d3';
  const script = [
    `process.stderr.write('* Connected to api.example.com\\n> GET /v1 HTTP/1.1\\n> Authorization: ${bearer}');`,
    // Without masking first, the last 2 KiB would begin 15 bytes before the header value ends.
    `process.stderr.write('x'.repeat(2048 - 15));`,
    'process.exitCode = 22;',
  ].join('\n');
  const h = await prepareHome(t, {
    env: { API_AUTH_HEADER: bearer },
    setup: (home) => {
      writeFileSync(join(home, 'curl-v.js'), script);
      mkdirSync(join(home, 'tools'), { recursive: true });
      writeFileSync(
        join(home, 'tools', 'fetch.json'),
        JSON.stringify({
          name: 'fetch_api',
          description: 'Fetches the API (curl -v).',
          needs: { type: 'object', properties: {}, additionalProperties: false },
          annotations: { readOnlyHint: true },
          transport: {
            type: 'command',
            argv: [process.execPath, join(home, 'curl-v.js')],
            timeoutMs: 10_000,
            outputBytes: 4096,
          },
        }),
      );
    },
  });
  const lease = await openLease(h as never, { serverId: 'local', agentId: 'a1' });
  t.after(() => lease.close());
  const r = await toolCall(lease.mcpUrl, lease.token(), 'fetch_api', {});
  assert.match(r.body, /exited with status 22; stderr ends: /);
  assertNoLeak(bearer, r.body, 'the failure message');
  assert.ok(!r.body.includes(bearer.slice(-15)), 'not even the last 15 bytes');
});

test('daemon.log masks every kind of secret the gate knows (credential variable, profile header and API key, runtime token, operator token)', async (t) => {
  const kinds = {
    env: 'envsecret_5f0c2a9e81d7',
    header: 'hdrsecret_77ab31c0e9f2',
    apiKey: 'keysecret_03d9e8f1a2b4',
  };
  const h = await prepareHome(t, {
    env: { GATE_LOG_API_KEY: kinds.env, VENDOR_KEY_FOR_A1: kinds.apiKey },
    profile: {
      agents: [
        {
          id: 'a1',
          runtime: 'claude',
          headers: { 'X-Gate-Auth': kinds.header },
          apiKeyEnv: 'VENDOR_KEY_FOR_A1',
        },
      ],
    },
  });
  const lease = await openLease(h as never, { serverId: 'local', agentId: 'a1' });
  t.after(() => lease.close());
  const all = { ...kinds, runtime: lease.token(), operator: h.operatorToken() };
  // Diagnostics that quote caller text: a request refused by the Host check names its path.
  for (const [kind, value] of Object.entries(all)) {
    const res = await rawRequest(
      new URL(`/api/v1/${kind}/${encodeURIComponent(value)}`, h.url).toString(),
      'GET',
      { host: 'evil.example' },
    );
    assert.equal(res.status, 403, res.body);
  }
  // A declaration problem quoting the file's content.
  mkdirSync(join(h.home, 'tools'), { recursive: true });
  writeFileSync(
    join(h.home, 'tools', 'bad.json'),
    JSON.stringify({ name: `bad ${kinds.env}`, description: kinds.header }),
  );
  await h.cli(['daemon', 'reload']);
  await h.cli(['daemon', 'stop']);
  const log = readFileSync(join(h.home, 'daemon.log'), 'utf8');
  for (const [kind, value] of Object.entries(all))
    assert.ok(!log.includes(value), `daemon.log holds the ${kind} secret`);
  for (const label of [
    '[GATE_LOG_API_KEY]',
    '[X-Gate-Auth]',
    '[VENDOR_KEY_FOR_A1]',
    '[AGENTTEAM_EXEC_TOKEN]',
    '[AGENTTEAM_OPERATOR_TOKEN]',
  ]) {
    assert.ok(
      log.includes(label),
      `the log line was written, masked (${label}): ${log.slice(-1500)}`,
    );
  }
});
