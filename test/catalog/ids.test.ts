import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ENTITY_ID_MAX, isEntityId } from '../../catalog/ids.js';
import { AUTHOR_PATTERN, TARGET_PATTERN } from '../../catalog/mcp-tools.js';
import { parseProfile, ProfileError } from '../../daemon/profile/parse.js';
import { startDaemon } from '../../daemon/server.js';
import { cliEnv } from '../../devkit/daemon.js';
import { waitFor } from '../../devkit/wait.js';
import { pool } from '../../devkit/cli.js';
import { requestLease, operatorToken } from '../../devkit/lease.js';
import { send } from '../../devkit/http.js';

/** The grammar table: every place that takes a server or agent id must agree with it. */
const VALID = [
  'a',
  'Z',
  '7',
  'a.b',
  'a..b',
  'a.',
  'a_b',
  'a-b',
  'A1.b_c-D',
  'x'.repeat(ENTITY_ID_MAX),
];
const INVALID = [
  '',
  '.',
  '..',
  '...',
  '.a',
  '-a',
  '_a',
  'a/b',
  'a\\b',
  'a b',
  'a%2Fb',
  'a%41',
  'a:b',
  'a@b',
  'a~b',
  'a?b',
  'a#b',
  'a+b',
  'é',
  'a\u0000',
  'a\n',
  'x'.repeat(ENTITY_ID_MAX + 1),
];

test('the grammar table, and what every valid id survives unchanged', () => {
  for (const id of VALID) assert.equal(isEntityId(id), true, id);
  for (const id of INVALID) assert.equal(isEntityId(id), false, JSON.stringify(id));
  const author = new RegExp(AUTHOR_PATTERN);
  const target = new RegExp(TARGET_PATTERN);
  const survives = (id: string) => {
    assert.equal(encodeURIComponent(id), id);
    assert.equal(
      new URL(`http://127.0.0.1:1/servers/${id}/agents/${id}/x`).pathname,
      `/servers/${id}/agents/${id}/x`,
    );
    assert.ok(author.test(`agent:${id}`) && author.test(`human:${id}`), `author of ${id}`);
    assert.ok(target.test(`dm:${id}`), `dm:${id}`);
  };
  VALID.forEach(survives);
  // Property: anything the grammar accepts survives; '.', '..' and escapes never pass.
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(...'aZ09._-~/%:@ é'.split('')), maxLength: 140 }),
      (s) => {
        if (isEntityId(s)) survives(s);
        else
          assert.ok(
            s === '' ||
              (s as string).length > ENTITY_ID_MAX ||
              /^[._-]/.test(s) ||
              /[^A-Za-z0-9._-]/.test(s),
            JSON.stringify(s),
          );
      },
    ),
    { numRuns: 2000 },
  );
});

test('profile agent ids and member handles use the same grammar', () => {
  for (const id of VALID)
    assert.equal(
      parseProfile({
        agents: [{ id }],
        teams: [{ teamId: 't', members: [{ kind: 'agent', handle: id }] }],
      }).agents[0]!.id,
      id,
    );
  for (const id of INVALID.filter((x) => x !== '')) {
    assert.throws(
      () => parseProfile({ agents: [{ id }] }),
      (e: unknown) =>
        e instanceof ProfileError && /agents\[0\]\.id must be 1-128 characters/.test(e.message),
      JSON.stringify(id),
    );
    assert.throws(
      () => parseProfile({ teams: [{ teamId: 't', members: [{ kind: 'human', handle: id }] }] }),
      ProfileError,
    );
  }
});

test('lease route, URLs and authors follow the grammar', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-ids-'));
  const daemon = await startDaemon({ home, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const op = operatorToken(home);

  await t.test(
    'HTTP lease route: valid ids leased and usable at their URLs verbatim; invalid refused with 400',
    async () => {
      for (const id of VALID) {
        const lease = await requestLease(daemon.url, op, { serverId: id, agentId: id });
        assert.equal(lease.status, 200, JSON.stringify(lease.body));
        const { execBaseUrl, mcpUrl } = lease.body.data!;
        assert.equal(execBaseUrl, `${daemon.url}/api/internal/exec/servers/${id}/agents/${id}`);
        assert.equal(mcpUrl, `${daemon.url}/api/internal/mcp/servers/${id}/agents/${id}`);
        const auth = { authorization: `Bearer ${lease.token()}` };
        assert.equal((await send(`${execBaseUrl}/catalog`, 'GET', auth)).status, 200, id);
        lease.close();
        await lease.ended;
      }
      for (const id of INVALID) {
        for (const body of [
          { serverId: id, agentId: 'a' },
          { serverId: 's', agentId: id },
        ]) {
          const lease = await requestLease(daemon.url, op, body);
          assert.equal(lease.status, 400, JSON.stringify(id));
          assert.equal(lease.body.error?.code, 'invalid_request');
          assert.match(
            lease.body.error!.message,
            /^(serverId|agentId) must be 1-128 characters of A-Z a-z 0-9 \. _ -, starting with a letter or digit$/,
          );
        }
      }
      assert.equal(daemon.store.stats().leases, 0, 'no refused lease left a record');
    },
  );

  await t.test(
    'URLs: an escaped or dot-segment spelling of the bound ids is refused',
    async (st) => {
      const lease = await requestLease(daemon.url, op, { serverId: 'srv.1', agentId: 'ag-1' });
      st.after(() => lease.close());
      const auth = { authorization: `Bearer ${lease.token()}` };
      const base = `${daemon.url}/api/internal/exec/servers`;
      assert.equal((await send(`${base}/srv.1/agents/ag-1/catalog`, 'GET', auth)).status, 200);
      for (const alias of [
        '%73rv.1/agents/ag-1',
        'srv%2E1/agents/ag-1',
        'srv.1/agents/ag%2D1',
        'srv.1/agents/ag-%31',
      ]) {
        // node:http sends the path as written; a decoded alias must not reach the bound ids.
        const r = await send(`${base}/${alias}/catalog`, 'GET', auth);
        assert.equal(r.status, 403, alias);
      }
      // Dot segments are resolved before routing (RFC 3986), which is why '.' and '..' can never be ids:
      // a URL built from them names another path.
      assert.equal((await send(`${base}/./agents/ag-1/catalog`, 'GET', auth)).status, 404);
      assert.equal((await send(`${base}/srv.1/agents/../catalog`, 'GET', auth)).status, 404);
    },
  );

  await t.test(
    'authors: the longest agent id authors as agent:<id> and is addressable as dm:<id>',
    async (st) => {
      const id = `A1.b_c-${'z'.repeat(ENTITY_ID_MAX - 7)}`;
      assert.equal(id.length, ENTITY_ID_MAX);
      const lease = await requestLease(daemon.url, op, { serverId: 'local', agentId: id });
      st.after(() => lease.close());
      const client = new Client({ name: 'ids-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(lease.body.data!.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${lease.token()}` } },
        }),
      );
      st.after(() => client.close());
      const sent = await client.callTool({
        name: 'message_send',
        arguments: { target: `dm:${id}`, content: 'note to self' },
      });
      assert.equal(sent.isError ?? false, false, JSON.stringify(sent));
      const message = (sent.structuredContent as { message: { author: string; target: string } })
        .message;
      assert.equal(message.author, `agent:${id}`);
      assert.match(message.author, new RegExp(AUTHOR_PATTERN));
      assert.equal(message.target, `dm:${id}`);
    },
  );

  await t.test(
    'agentteam run: valid ids run with their URLs, invalid ones exit 2 naming the flag',
    async () => {
      const env = { ...process.env, AGENTTEAM_HOME: home };
      const child = "process.stdout.write(process.env.AGENTTEAM_EXEC_BASE_URL+'\\n')";
      const ok = await pool(
        VALID.map(
          (id) => () =>
            cliEnv(
              ['run', `--server=${id}`, `--agent=${id}`, '--', process.execPath, '-e', child],
              env,
            ),
        ),
        3,
      );
      ok.forEach((r, i) => {
        assert.equal(r.code, 0, `${VALID[i]}: ${r.stderr} ${r.stdout}`);
        assert.equal(
          r.stdout.trim(),
          `${daemon.url}/api/internal/exec/servers/${VALID[i]}/agents/${VALID[i]}`,
        );
      });
      // Each invalid id once, alternating the flag (argv cannot carry NUL).
      const cases = INVALID.filter((id) => !id.includes('\u0000')).map(
        (id, i) => [i % 2 ? '--server' : '--agent', id] as const,
      );
      const bad = await pool(
        cases.map(
          ([flag, id]) =>
            () =>
              cliEnv(
                [
                  'run',
                  ...(flag === '--server'
                    ? [`--server=${id}`, '--agent=a']
                    : ['--server=s', `--agent=${id}`]),
                  '--',
                  process.execPath,
                  '-e',
                  '',
                ],
                env,
              ),
        ),
        3,
      );
      bad.forEach((r, i) => {
        assert.equal(r.code, 2, `${JSON.stringify(cases[i])}: ${r.stderr}`);
        assert.equal(JSON.parse(r.stdout).error.code, 'usage');
        assert.equal(
          r.stderr,
          `agentteam run: ${cases[i]![0]} must be 1-128 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit\n`,
        );
      });
      assert.ok(
        await waitFor(() => daemon.store.stats().leases === 0, 2000),
        'every run revoked its lease; no refused one left a record',
      );
      // The operator's message commands take the same server ids.
      for (const [id, code] of [
        ['srv.1', 0],
        ['..', 2],
        ['a:b', 2],
      ] as const) {
        const post = await cliEnv(
          [
            'message',
            'post',
            `--server=${id}`,
            '--target',
            'channel:general',
            '--as',
            'human:ada',
            'hi',
          ],
          env,
        );
        const history = await cliEnv(
          ['message', 'history', `--server=${id}`, '--target', 'channel:general'],
          env,
        );
        assert.deepEqual(
          [post.code, history.code],
          [code, code],
          `${id}: ${post.stderr}${history.stderr}`,
        );
        if (code === 2)
          assert.match(post.stderr, /^agentteam message post: --server must be 1-128 characters/);
      }
    },
  );
});
