import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { createSecretKey, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { SignJWT, base64url } from 'jose';
import { startDaemon } from '../../daemon/server.js';
import { FORBIDDEN_BODY } from '../../daemon/http/runtime-auth.js';
import { TOKEN_AUDIENCE, TOKEN_ISSUER, TOKEN_TYP } from '../../daemon/auth/signer.js';
import { FakeClock } from '../../devkit/auth-clock.js';

interface Res {
  status: number;
  body: string;
  type: string | undefined;
}

function send(url: string, method: string, auth?: string, body?: string): Promise<Res> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = auth;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request(url, { method, headers, agent: false }, (res) => {
      let b = '';
      res.setEncoding('utf8').on('data', (d: string) => (b += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: b, type: res.headers['content-type'] }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The token with one character of its payload swapped for another base64url character. */
function payloadChanged(token: string): string {
  const [head, payload, sig] = token.split('.');
  const at = Math.floor(payload!.length / 2);
  const swapped = payload![at] === 'A' ? 'B' : 'A';
  return `${head}.${payload!.slice(0, at)}${swapped}${payload!.slice(at + 1)}.${sig}`;
}

test('forged-token battery: every failure is the byte-identical 403', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-h2-forged-'));
  const clock = new FakeClock(Date.now());
  const key = createSecretKey(randomBytes(32));
  const daemon = await startDaemon({ home, clock, key, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const a1 = await daemon.store.create({ serverId: 's1', agentId: 'a1', ttlMs: 60_000 });
  const a2 = await daemon.store.create({ serverId: 's1', agentId: 'a2', ttlMs: 60_000 });
  const gone = await daemon.store.create({ serverId: 's1', agentId: 'a1', ttlMs: 60_000 });
  const tok1 = readFileSync(a1.tokenFile, 'utf8');
  const goneTok = readFileSync(gone.tokenFile, 'utf8');
  await daemon.store.revoke(gone.id, 'test');

  const base = (s: string, a: string) => `${daemon.url}/api/internal/exec/servers/${s}/agents/${a}`;
  const ok = await send(`${base('s1', 'a1')}/catalog`, 'GET', `Bearer ${tok1}`);
  assert.equal(ok.status, 200, 'positive control');
  const catalog = JSON.parse(ok.body) as {
    ok: boolean;
    data: { actions: Record<string, unknown>[] };
  };
  assert.ok(catalog.ok && catalog.data.actions.length > 0);
  for (const k of [
    'domain',
    'action',
    'summary',
    'help',
    'risk',
    'example',
    'inputSchema',
    'outputSchema',
  ]) {
    assert.ok(k in catalog.data.actions[0]!, `descriptor has ${k}`);
  }

  const nowS = Math.floor(clock.now() / 1000);
  const gen1 = a1.generations[0]!;
  type Claims = Record<string, unknown>;
  const good: Claims = {
    scope: 'runtime',
    srv: 's1',
    agt: 'a1',
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    sub: a1.id,
    jti: gen1.id,
    iat: nowS,
    exp: nowS + 60,
  };
  const sign = (claims: Claims, k = key, typ = TOKEN_TYP) => {
    const c = { ...claims };
    return new SignJWT(c).setProtectedHeader({ alg: 'HS256', typ }).sign(k);
  };
  const without = (name: string): Claims => {
    const c = { ...good };
    delete c[name];
    return c;
  };
  const enc = (o: object) => base64url.encode(JSON.stringify(o));
  const cases: [string, string | undefined, string?][] = [
    ['no header', undefined],
    ['empty bearer', 'Bearer '],
    ['not bearer', `Basic ${tok1}`],
    ['garbage', 'Bearer garbage.garbage.garbage'],
    ['alg none', `Bearer ${enc({ alg: 'none', typ: TOKEN_TYP })}.${enc(good)}.`],
    ['HS256 with another key', `Bearer ${await sign(good, createSecretKey(randomBytes(32)))}`],
    ['expired', `Bearer ${await sign({ ...good, iat: nowS - 120, exp: nowS - 60 })}`],
    [
      'iat in the future beyond tolerance',
      `Bearer ${await sign({ ...good, iat: nowS + 60, exp: nowS + 120 })}`,
    ],
    ['no exp', `Bearer ${await sign(without('exp'))}`],
    ['no iat', `Bearer ${await sign(without('iat'))}`],
    ['no jti', `Bearer ${await sign(without('jti'))}`],
    ['no sub', `Bearer ${await sign(without('sub'))}`],
    ['wrong audience', `Bearer ${await sign({ ...good, aud: 'someone-else' })}`],
    ['wrong issuer', `Bearer ${await sign({ ...good, iss: 'someone-else' })}`],
    ['wrong typ', `Bearer ${await sign(good, key, 'JWT')}`],
    ['wrong scope', `Bearer ${await sign({ ...good, scope: 'token-analysis' })}`],
    [
      'right key, no generation record',
      `Bearer ${await sign({ ...good, jti: 'not-a-generation' })}`,
    ],
    ["valid token on another agent's path", `Bearer ${tok1}`, base('s1', 'a2')],
    ["valid token on another server's path", `Bearer ${tok1}`, base('s2', 'a1')],
    ['revoked generation', `Bearer ${goneTok}`],
    ['token over 4 KiB', `Bearer ${tok1}${'A'.repeat(4200)}`],
    // The verified-token cache finds a generation by the token's signature: the whole token must match too.
    ['a verified token with its payload changed, signature kept', `Bearer ${payloadChanged(tok1)}`],
    [
      'a verified token with its header changed, signature kept',
      `Bearer ${'x'.repeat(3)}${tok1.slice(3)}`,
    ],
  ];
  const paths = (b: string) => [
    ['GET', `${b}/catalog`],
    ['POST', `${b}/task/list`],
  ];
  for (const [name, header, b] of cases) {
    for (const [method, url] of paths(b ?? base('s1', 'a1'))) {
      const res = await send(url!, method!, header, method === 'POST' ? '{}' : undefined);
      assert.equal(res.status, 403, `${name} ${method}`);
      assert.equal(res.body, FORBIDDEN_BODY, `${name} ${method}`);
      assert.equal(res.type, 'application/json', `${name} ${method}`);
    }
  }
  // MCP routes share the middleware and therefore the bytes.
  for (const url of [
    `${daemon.url}/api/internal/mcp/servers/s1/agents/a2`,
    `${daemon.url}/mcp/agentteam/s1/a2`,
  ]) {
    const res = await send(
      url,
      'POST',
      `Bearer ${tok1}`,
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    );
    assert.deepEqual([res.status, res.body], [403, FORBIDDEN_BODY]);
  }
  // a2's own token still works on its own path.
  assert.equal(
    (
      await send(
        `${base('s1', 'a2')}/catalog`,
        'GET',
        `Bearer ${readFileSync(a2.tokenFile, 'utf8')}`,
      )
    ).status,
    200,
  );

  // A real generation: valid through exp + tolerance (< 5 s), refused after, same bytes.
  const expS = gen1.expiresAtMs;
  clock.advance(expS - clock.now() + 4_000);
  assert.equal((await send(`${base('s1', 'a1')}/catalog`, 'GET', `Bearer ${tok1}`)).status, 200);
  clock.advance(1_000);
  const expired = await send(`${base('s1', 'a1')}/catalog`, 'GET', `Bearer ${tok1}`);
  assert.deepEqual([expired.status, expired.body], [403, FORBIDDEN_BODY]);
});
