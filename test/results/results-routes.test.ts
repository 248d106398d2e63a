import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { startDaemon } from '../../daemon/server.js';
import { routeTable } from '../../daemon/results/route-table.js';
import { ResultGate } from '../../daemon/results/gate.js';
import { SecretSet } from '../../daemon/masking/secrets.js';
import { SpillStore } from '../../daemon/results/spill.js';
import { openLease } from '../../devkit/lease.js';

/**
 * Walks every entry of the daemon's route table. Each must sit behind the
 * result gate's middleware, and a request that plants a configured secret
 * in the path, the query and every body field must not get it back, on any
 * route, whatever the route answers. A new route without the gate fails here.
 */
const SECRET = 'correct-horse-battery';

interface Got {
  status: number;
  body: string;
}

/** One request; streams (leases, SSE) are read for a moment and then dropped. */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        headers:
          body === undefined
            ? headers
            : {
                ...headers,
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(body)),
              },
      },
      (res) => {
        let buf = '';
        const finish = () => {
          clearTimeout(timer);
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body: buf });
        };
        const timer = setTimeout(finish, 700);
        res.setEncoding('utf8').on('data', (d: string) => (buf += d));
        res.on('end', finish);
        res.on('error', finish);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('every route in the route table is behind the result gate and never returns a planted secret', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-walk-'));
  process.env.WALK_SERVICE_TOKEN = SECRET;
  const daemon = await startDaemon({ home, log: () => undefined });
  t.after(async () => {
    await daemon.stop('test');
    rmSync(home, { recursive: true, force: true });
  });
  const lease = await openLease({ home, url: daemon.url } as never, {
    serverId: 's1',
    agentId: 'a1',
  });
  t.after(() => lease.close());
  const op = readFileSync(join(home, 'operator.token'), 'utf8').trim();
  const planted = {
    title: SECRET,
    id: SECRET,
    content: SECRET,
    target: `channel:${SECRET}`,
    serverId: SECRET,
    agentId: SECRET,
    author: `human:${SECRET}`,
    answer: SECRET,
    client_id: SECRET,
    group: SECRET,
    jsonrpc: '2.0',
    method: 'tools/call',
    params: { name: SECRET, arguments: { text: SECRET } },
  };

  assert.ok(daemon.routes.length > 10, 'the table is read');
  let walked = 0;
  const stop = daemon.routes.filter((r) => r.path === '/api/v1/stop');
  for (const r of [...daemon.routes.filter((x) => x.path !== '/api/v1/stop'), ...stop]) {
    assert.ok(r.gated, `${r.method} ${r.path} is not behind the result gate`);
    const runtime = !r.path.startsWith('/api/v1');
    const path = r.path
      .replace(/:serverId/g, 's1')
      .replace(/:agentId/g, 'a1')
      .replace(/:[A-Za-z]+/g, SECRET)
      .replace(/\*$/, SECRET);
    const url = `${daemon.url}${path}?q=${SECRET}&serverId=${SECRET}&target=channel:${SECRET}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${runtime ? lease.token() : op}`,
      accept: 'application/json, text/event-stream',
    };
    const methods = r.method === 'ALL' ? ['GET', 'POST'] : [r.method];
    for (const m of methods) {
      const passed = daemon.gatedResponses();
      const got = await send(url, m, headers, m === 'GET' ? undefined : JSON.stringify(planted));
      assert.ok(
        !got.body.includes(SECRET),
        `${m} ${r.path} (${got.status}) returned the secret: ${got.body.slice(0, 300)}`,
      );
      assert.ok(
        daemon.gatedResponses() > passed,
        `${m} ${r.path} (${got.status}) answered without passing the result gate`,
      );
      walked++;
    }
  }
  assert.ok(walked >= daemon.routes.length);
});

test('a route registered before the gate, or without it, is reported as not gated', () => {
  const gate = new ResultGate(
    new SecretSet(),
    new SpillStore({ dir: tmpdir(), clock: { now: () => 0 } as never }),
  );
  const app = new Hono();
  app.get('/early', (c) => c.text('x'));
  app.use('*', gate.middleware());
  app.get('/late', (c) => c.text('y'));
  assert.deepEqual(
    routeTable(app.routes).map((r) => [r.path, r.gated]),
    [
      ['/early', false],
      ['/late', true],
    ],
  );
  const bare = new Hono();
  bare.get('/x', (c) => c.text('x'));
  assert.deepEqual(
    routeTable(bare.routes).map((r) => r.gated),
    [false],
  );
});
