import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { ERROR_TABLE } from '../catalog/errors.js';
import type { Clock } from '../lib/clock.js';
import { capConnections, serverTimeouts, type ConnectionBudget } from './http/connection-cap.js';
import type { Diag } from './lifecycle/diag.js';
import {
  freeSocketPath,
  removeSocket,
  sealSocket,
  socketStillPrivate,
  SocketPathError,
} from './lifecycle/socket-file.js';
import { SOCKET_ENV } from './operator/auth.js';

interface UnixListenerOptions {
  readonly fetch: (req: Request, env: unknown) => Response | Promise<Response>;
  readonly dir: string;
  readonly path: string;
  readonly budget: ConnectionBudget;
  readonly clock: Clock;
  readonly diag: Diag;
}

export interface UnixListener {
  readonly path: string;
  close(): Promise<void>;
}

/** The socket's own connection cap: a share of the descriptors kept free of TCP clients. */
function socketConnectionCap(b: ConnectionBudget): number {
  return Math.max(8, Math.min(64, Math.floor(b.headroom / 4)));
}

/** Only the operator API is served here; anything else is answered as an unknown route. */
function notOperator(): Response {
  const error = {
    code: 'not_found',
    message: 'only the operator API (/api/v1) is served on this socket',
  };
  return new Response(JSON.stringify({ ok: false, error, code: error.code }), {
    status: ERROR_TABLE.not_found.http,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * The operator API on an owner-only unix socket in the home (0600 in a 0700
 * directory): an app on this machine needs neither the port nor the token
 * file; the socket's permissions are its credential. Requests go to the same
 * app, marked as arriving here (SOCKET_ENV), with the same deadlines and body
 * limits and a connection cap of its own. Every connection is first checked
 * to still come through the file the daemon bound and sealed; a socket that
 * cannot be made is reported and left out (the daemon serves HTTP
 * regardless). Resolves null then.
 */
export async function openUnixListener(o: UnixListenerOptions): Promise<UnixListener | null> {
  let freed: string | null;
  try {
    freed = await freeSocketPath(o.dir, o.path);
  } catch (err) {
    if (!(err instanceof SocketPathError) && (err as Error).name !== 'HomeLinkError') throw err;
    o.diag('socket_unavailable', { reason: (err as Error).message });
    return null;
  }
  if (freed) o.diag('socket_path_freed', { path: o.path, what: freed });
  const fetch = o.fetch;
  const srv = createAdaptorServer({
    fetch: (req: Request, env: unknown) => {
      const path = new URL(req.url).pathname;
      if (path !== '/api/v1' && !path.startsWith('/api/v1/')) return notOperator();
      return fetch(req, { ...(env as object), [SOCKET_ENV]: true });
    },
    serverOptions: serverTimeouts,
  }) as Server;
  let id: ReturnType<typeof sealSocket> | null = null;
  const max = socketConnectionCap(o.budget);
  let lastShedLog = 0;
  // Before the cap counts it: a connection that fails the check is never served.
  srv.prependListener('connection', (socket) => {
    if (id && socketStillPrivate(o.dir, o.path, id)) return;
    o.diag('socket_connection_refused', { reason: 'the socket file is no longer private' });
    socket.destroy();
  });
  capConnections(srv, max, (n) => {
    if (o.clock.now() - lastShedLog < 1_000) return;
    lastShedLog = o.clock.now();
    o.diag('socket_connections_shed', { total: n, max });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen({ path: o.path, backlog: max }, () => {
        srv.off('error', reject);
        resolve();
      });
    });
    id = sealSocket(o.path);
  } catch (err) {
    srv.close();
    o.diag('socket_unavailable', { reason: (err as Error).message });
    return null;
  }
  srv.on('error', (err) =>
    o.diag('socket_error', { error: (err as NodeJS.ErrnoException).code ?? err.message }),
  );
  const bound = id;
  return {
    path: o.path,
    close: () =>
      new Promise<void>((resolve) => {
        srv.close(() => {
          removeSocket(o.path, bound);
          resolve();
        });
        srv.closeAllConnections();
      }),
  };
}
