import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: { extension: string; action: string; input: Record<string, unknown> };
  path: string;
}

/**
 * A real HTTP provider upstream for extension tests: a PR-watch service that
 * keeps watches in memory. Inputs steer failures: repo "acme/revoked" answers
 * 401, "acme/forbidden" 403, "acme/broken" 500, "acme/garbage" a body that
 * does not match the output schema.
 */
export async function startUpstream(): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const watches = new Map<string, Record<string, unknown>>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'];
      received.push({ headers: req.headers, body, path: req.url ?? '' });
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      const repo = body.input.repo;
      if (repo === 'acme/revoked') return send(401, { message: 'Bad credentials' });
      if (repo === 'acme/forbidden')
        return send(403, { message: 'Resource not accessible by integration' });
      if (repo === 'acme/broken') return send(500, { message: 'boom' });
      if (repo === 'acme/garbage') return send(200, { nothing: true });
      if (body.action === 'watch') {
        const watch = {
          id: `w_${++n}`,
          repo,
          number: body.input.number,
          target: body.input.target,
        };
        watches.set(watch.id, watch);
        return send(200, { watch });
      }
      if (body.action === 'unwatch') {
        watches.delete(String(body.input.id));
        return send(200, { removed: body.input.id });
      }
      return send(200, { watches: [...watches.values()] });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * An upstream that accepts every call, sends its headers and then one byte
 * every `everyMs` forever: it never finishes an answer. `open` counts the
 * connections it holds; `closed` resolves with the count each time one ends.
 */
export async function startTrickle(everyMs = 300): Promise<{
  url: string;
  open(): number;
  accepted(): number;
  waitClosed(n: number, ms: number): Promise<boolean>;
  close(): Promise<void>;
}> {
  let open = 0;
  let accepted = 0;
  let ended = 0;
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    open++;
    accepted++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"watches":[');
    const t = setInterval(() => res.write(' '), everyMs);
    res.on('close', () => {
      clearInterval(t);
      open--;
      ended++;
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => open,
    accepted: () => accepted,
    async waitClosed(n, ms) {
      const until = Date.now() + ms;
      while (ended < n) {
        const left = until - Date.now();
        if (left <= 0) return false;
        await new Promise<void>((r) => {
          const timer = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(timer);
            r();
          });
        });
      }
      return true;
    },
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
