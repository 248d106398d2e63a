import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLease } from '../../devkit/lease.js';
import { rpc } from '../../devkit/http.js';
import { startDaemon } from '../../devkit/daemon.js';
import { LongLivedStreams, streamCap } from '../../daemon/http/stream-budget.js';

/**
 * Long-lived streams (MCP GET notification streams, 2026 listen streams,
 * operator event streams) hold a connection each without holding an
 * in-flight slot. Enough runtimes opening their per-runtime maximum used to
 * fill the connection cap, after which every new connection was refused, the
 * operator's included. These tests start the daemon under a 256-descriptor
 * limit (192 connections, 96 streams) and open far more streams than fit.
 */

interface OpenStream {
  /** Resolves with the status once the response head arrives (0 when the connection failed). */
  readonly status: Promise<number>;
  readonly ended: Promise<void>;
  /** Everything the stream carried. */
  text(): string;
  close(): void;
}

const V2026 = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': V2026,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'streams-test', version: '1.0.0' },
};

function openStream(url: string, token: string, kind: 'get' | 'listen', id = 1): OpenStream {
  let buf = '';
  let req!: ClientRequest;
  let endedResolve!: () => void;
  const ended = new Promise<void>((r) => (endedResolve = r));
  const status = new Promise<number>((resolve) => {
    const body =
      kind === 'listen'
        ? JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'subscriptions/listen',
            params: { notifications: { toolsListChanged: true }, _meta: META },
          })
        : undefined;
    const headers: Record<string, string> =
      kind === 'get'
        ? {
            authorization: `Bearer ${token}`,
            accept: 'text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          }
        : {
            authorization: `Bearer ${token}`,
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            'mcp-protocol-version': V2026,
            'mcp-method': 'subscriptions/listen',
            'content-length': String(Buffer.byteLength(body!)),
          };
    req = request(
      url,
      { method: kind === 'get' ? 'GET' : 'POST', headers, agent: false },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.on('data', (c: Buffer) => (buf += c.toString()));
        res.on('end', () => {
          endedResolve();
          req.destroy();
        });
        res.on('error', () => endedResolve());
        res.on('close', () => endedResolve());
      },
    );
    req.on('error', () => {
      resolve(0);
      endedResolve();
    });
    req.end(body);
  });
  return { status, ended, text: () => buf, close: () => req.destroy() };
}

test('the stream budget sheds the oldest stream of the runtime holding the most, operator streams last', () => {
  assert.equal(streamCap(192), 96);
  assert.equal(streamCap(768), 384);
  const shed: string[] = [];
  const b = new LongLivedStreams(4);
  const add = (owner: string, name: string, operator = false) =>
    b.admit({
      owner,
      operator,
      kind: operator ? 'events' : 'mcp_get',
      shed: () => shed.push(name),
    });
  add('op', 'op1', true);
  add('a', 'a1');
  add('a', 'a2');
  add('b', 'b1');
  assert.equal(b.open, 4);
  add('c', 'c1'); // full: a holds the most, its oldest goes
  assert.deepEqual(shed, ['a1']);
  add('c', 'c2'); // a, b and c hold one each (and op): the oldest runtime owner's stream
  assert.deepEqual(shed, ['a1', 'a2']);
  const t = add('d', 'd1');
  assert.deepEqual(shed, ['a1', 'a2', 'c1'], 'c held two');
  t.release();
  t.release();
  assert.equal(b.open, 3);
  // Only operator streams left to shed once no runtime holds one.
  const only = new LongLivedStreams(2);
  only.admit({ owner: 'o1', operator: true, kind: 'events', shed: () => shed.push('o1') });
  only.admit({ owner: 'o2', operator: true, kind: 'events', shed: () => shed.push('o2') });
  only.admit({ owner: 'r', kind: 'listen', shed: () => shed.push('r') });
  assert.equal(shed.at(-1), 'o1');
  assert.equal(only.shed, 1);
});

test('150 runtimes each opening their maximum streams under ulimit -n 256: the operator and a new runtime are still served', {
  timeout: 240_000,
}, async (t) => {
  if (spawnSync('bash', ['-c', 'ulimit -n 256']).status !== 0)
    return t.skip('cannot lower the descriptor limit here (bash ulimit)');
  const d = await startDaemon({ descriptorLimit: 256 });
  const leases: { close(): void }[] = [];
  const streams: OpenStream[] = [];
  t.after(async () => {
    for (const s of streams) s.close();
    for (const l of leases) l.close();
    await d.close();
  });
  const op = readFileSync(join(d.home, 'operator.token'), 'utf8').trim();
  const status = async () => {
    const res = await fetch(`${d.url}/api/v1/status`, {
      headers: { authorization: `Bearer ${op}` },
      signal: AbortSignal.timeout(10_000),
    });
    assert.equal(res.status, 200);
    return (
      (await res.json()) as {
        data: {
          connections: { open: number; max: number };
          streams: { open: number; max: number; shed: number };
          leases: number;
        };
      }
    ).data;
  };
  const first = await status();
  assert.equal(first.connections.max, 192, 'the cap derived from 256 descriptors');
  assert.equal(first.streams.max, 96, 'half of the connections');

  const RUNTIMES = 150;
  const perRuntime: OpenStream[][] = [];
  for (let i = 0; i < RUNTIMES; i++) {
    const lease = await openLease(d, { serverId: 's', agentId: `r${i}` });
    leases.push(lease);
    const mine = [0, 1, 2, 3]
      .map(() => openStream(lease.mcpUrl, lease.token(), 'get'))
      .concat([0, 1, 2, 3].map((n) => openStream(lease.mcpUrl, lease.token(), 'listen', n + 1)));
    streams.push(...mine);
    perRuntime.push(mine);
    const codes = await Promise.all(mine.map((s) => s.status));
    assert.deepEqual(
      codes,
      [200, 200, 200, 200, 200, 200, 200, 200],
      `runtime ${i}: every stream up to its own maximum is accepted: ${codes.join(',')}`,
    );
    if (i % 25 === 24) {
      const s = await status();
      assert.ok(s.streams.open <= 96, `${s.streams.open} streams open`);
      assert.ok(s.connections.open <= 192);
    }
  }
  const s = await status();
  assert.equal(s.leases, RUNTIMES);
  assert.ok(s.streams.open <= 96 && s.streams.shed >= RUNTIMES * 8 - 96, JSON.stringify(s.streams));
  // The oldest runtime's streams went first; a shed listen stream was answered with its completion result first.
  await Promise.all(perRuntime[0]!.map((x) => x.ended));
  assert.match(perRuntime[0]![4]!.text(), /"id":1,"result":\{"resultType":"complete"/);

  // A new runtime: its lease, a tools/list and a stream of its own.
  const fresh = await openLease(d, { serverId: 's', agentId: 'newcomer' });
  leases.push(fresh);
  const listed = await rpc(fresh.mcpUrl, fresh.token(), {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: {},
  });
  assert.equal(listed.status, 200);
  assert.ok((JSON.parse(listed.body) as { result: { tools: unknown[] } }).result.tools.length > 0);
  const own = openStream(fresh.mcpUrl, fresh.token(), 'get');
  streams.push(own);
  assert.equal(await own.status, 200);
  // The operator: status and an event stream.
  const ev = await fetch(`${d.url}/api/v1/events`, {
    headers: { authorization: `Bearer ${op}` },
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(ev.status, 200);
  await ev.body?.cancel();
  assert.equal((await status()).leases, RUNTIMES + 1);
});
