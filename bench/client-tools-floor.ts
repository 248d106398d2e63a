import { createServer } from 'node:http';

/**
 * The floor the client-tools relay is measured against, in its own process:
 * plain node:http with nothing on top. POST /rt reads its body and answers a
 * small JSON object (one keep-alive loopback round trip); GET /sse?rate=R&n=N
 * opens an event stream and writes N events R a second, each carrying the
 * monotonic clock (process.hrtime, system-wide on Linux) at the moment it was
 * written, so the reader in another process can tell how long delivery took.
 * Prints `{"url":...}` once listening.
 */

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (req.method === 'POST' && url.pathname === '/rt') {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      const body = JSON.stringify({ ok: true, bytes: n });
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
    return;
  }
  if (req.method === 'GET' && url.pathname === '/sse') {
    const rate = Number(url.searchParams.get('rate') ?? 200);
    const n = Number(url.searchParams.get('n') ?? 1000);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.flushHeaders();
    const start = performance.now();
    let i = 0;
    const next = () => {
      if (i >= n || res.destroyed) return void res.end();
      res.write(`id: ${i}\nevent: tick\ndata: {"i":${i},"ns":"${process.hrtime.bigint()}"}\n\n`);
      i++;
      setTimeout(next, Math.max(0, start + (i * 1000) / rate - performance.now()));
    };
    next();
    return;
  }
  res.writeHead(404).end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${addr.port}` })}\n`);
});
