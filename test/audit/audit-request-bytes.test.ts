import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { startDaemon, startRuntime, type SpawnedDaemon } from '../../devkit/daemon.js';

/**
 * `requestBytes` says how much of a call's body the daemon read. A refused
 * call used to be recorded with its announced Content-Length, so a runtime
 * could write any figure it liked into the trail (999999999 for a two-byte
 * body the daemon never read).
 */

/** One raw request with the headers exactly as given (the HTTP clients correct a lying Content-Length); the status. */
function rawPost(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    socket.on('data', (c) => {
      got += c.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got);
      if (m && got.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    const head = Object.entries({ host: `${hostname}:${port}`, ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n${body}`);
  });
}

async function rowsFor(
  d: SpawnedDaemon,
  tool: string,
  n: number,
): Promise<{ requestBytes: number; outcome: string }[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const r = await d.cli(['audit', '--json', '--tool', tool]);
    assert.equal(r.code, 0, r.stderr);
    const rows = (
      JSON.parse(r.stdout) as { data: { entries: { requestBytes: number; outcome: string }[] } }
    ).data.entries;
    if (rows.length >= n || Date.now() > until) return rows;
    await new Promise((res) => setTimeout(res, 100));
  }
}

test('a refused Exec call is audited with the bytes actually read, not the Content-Length it announced', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const rt = await startRuntime(d, { server: 'local', agent: 'a1' });
  t.after(() => rt.close());
  const path = new URL(rt.base).pathname;
  const headers = (length: string) => ({
    authorization: `Bearer ${rt.token()}`,
    'content-type': 'application/json',
    'content-length': length,
  });

  assert.equal(await rawPost(rt.base, `${path}/task/list`, headers('999999999'), '{}'), 413);
  const [tooLarge] = await rowsFor(d, 'task/list', 1);
  assert.equal(tooLarge?.outcome, 'body_too_large');
  assert.equal(tooLarge?.requestBytes, 0, 'nothing of the body was read');

  assert.equal(
    await rawPost(rt.base, `${path}/task/no-such-action`, headers('7340032'), '{}'),
    404,
  );
  const [unknown] = await rowsFor(d, 'task/no-such-action', 1);
  assert.equal(unknown?.outcome, 'not_found');
  assert.equal(unknown?.requestBytes, 0, 'refused before its body was read');
});
