import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { sseData } from '../lib/event-stream.js';

/** The operator API's unix socket of a home. */
export const socketOf = (home: string) => join(home, 'sock', 'api.sock');

export interface SocketAnswer {
  readonly status: number;
  readonly body: any;
}

/** One request over a unix socket (node:http with socketPath), no credential; the JSON answer. */
export function overSocket(
  socketPath: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<SocketAnswer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        socketPath,
        method,
        path,
        headers: {
          ...(data !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = text ? JSON.parse(text) : null;
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, body: json });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

export interface SocketStream {
  /** Every event's parsed data so far. */
  readonly frames: { seq: number; type: string; data: any }[];
  next(pred: (f: { type: string; data: any }) => boolean, ms?: number): Promise<any>;
  /** Resolves when the daemon ends the response. */
  readonly ended: Promise<void>;
  close(): void;
}

/** GET on an SSE row (the event stream) over a socket or a URL with headers; resolves once the response began. */
export function openStream(
  target: { socketPath: string } | { url: string },
  path: string,
  headers: Record<string, string> = {},
): Promise<SocketStream> {
  return new Promise((resolve, reject) => {
    const where =
      'socketPath' in target
        ? { socketPath: target.socketPath, path }
        : (() => {
            const u = new URL(path, target.url);
            return { host: u.hostname, port: Number(u.port), path: u.pathname + u.search };
          })();
    const req = request({ ...where, method: 'GET', headers, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`stream answered ${res.statusCode}`));
        res.resume();
        return;
      }
      resolve(follow(res, () => req.destroy()));
    });
    req.on('error', reject);
    req.end();
  });
}

function follow(res: IncomingMessage, destroy: () => void): SocketStream {
  const frames: SocketStream['frames'] = [];
  const waiters: { pred: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  res.setEncoding('utf8');
  const ended = (async () => {
    try {
      for await (const data of sseData(res as AsyncIterable<string>)) {
        const f = JSON.parse(data);
        frames.push(f);
        for (const w of [...waiters])
          if (w.pred(f)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(f);
          }
      }
    } catch {
      // closed by the test
    }
  })();
  return {
    frames,
    ended,
    next(pred, ms = 5000) {
      const seen = frames.find(pred);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no matching event; saw ${frames.map((f) => f.type).join(',')}`)),
          ms,
        );
        waiters.push({
          pred,
          resolve: (f) => {
            clearTimeout(t);
            resolve(f);
          },
        });
      });
    },
    close: destroy,
  };
}
