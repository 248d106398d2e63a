import type { AddressInfo } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Clock } from '../lib/clock.js';
import {
  capConnections,
  listenBacklog,
  serverTimeouts,
  type ConnectionBudget,
} from './http/connection-cap.js';
import { connectionReserve, type LongLivedStreams } from './http/stream-budget.js';
import { readLastPort, writeLastPort } from './lifecycle/home-files.js';
import type { Diag } from './lifecycle/diag.js';

interface ListenerOptions {
  readonly fetch: (req: Request) => Response | Promise<Response>;
  /** Answers the requests it recognises before the adapter sees them (the Exec lane); false hands one on. */
  readonly lane?: (req: IncomingMessage, res: ServerResponse) => boolean;
  readonly host: string;
  /** 0: an ephemeral port, the home's last one first. */
  readonly port: number;
  readonly home: string;
  readonly budget: ConnectionBudget;
  readonly streams: LongLivedStreams;
  readonly clock: Clock;
  readonly diag: Diag;
  /** Told the server as soon as it exists, so a failed start can close it. */
  readonly opened: (server: Server) => void;
}

export interface Listener {
  readonly server: Server;
  readonly conns: ReturnType<typeof capConnections>;
  readonly port: number;
  readonly url: string;
}

/**
 * The daemon's HTTP server, listening: the connection cap (shedding a
 * long-lived stream before refusing a connection), the backlog, and an
 * ephemeral port asked for at the last one this home used.
 */
export async function openListener(o: ListenerOptions): Promise<Listener> {
  const { host, port, home, budget, streams, clock, diag } = o;
  const lane = o.lane;
  const srv = createAdaptorServer({
    fetch: o.fetch,
    hostname: host,
    serverOptions: serverTimeouts,
    ...(lane
      ? {
          createServer: ((
            options: object,
            adapter: (req: IncomingMessage, res: ServerResponse) => void,
          ) =>
            createServer(options, (req, res) => {
              if (!lane(req, res)) adapter(req, res);
            })) as typeof createServer,
        }
      : {}),
  }) as Server;
  o.opened(srv);
  let lastShedLog = 0;
  const conns = capConnections(
    srv,
    budget.maxConnections,
    (n) => {
      if (clock.now() - lastShedLog < 1_000) return;
      lastShedLog = clock.now();
      diag('connections_shed', { total: n, max: budget.maxConnections });
    },
    () => streams.shedOne(),
  );
  const reserve = connectionReserve(budget.maxConnections);
  streams.watchConnections(() => conns.busy() >= budget.maxConnections - reserve);
  const listenOn = (p: number) =>
    new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen({ host, port: p, backlog: listenBacklog(budget) }, () => {
        srv.off('error', reject);
        resolve();
      });
    });
  // An ephemeral port is first asked for at the last one this home used: runtimes that outlived
  // the previous daemon know its URL and can only be re-leased at the same address.
  const lastPort = port === 0 ? readLastPort(home, host) : null;
  if (lastPort === null) await listenOn(port);
  else {
    await listenOn(lastPort).catch((err: NodeJS.ErrnoException) => {
      diag('last_port_taken', { port: lastPort, error: err.code ?? err.message });
      return listenOn(0);
    });
  }
  // accept() failing (EMFILE) is reported here; it must never become an uncaught exception.
  srv.on('error', (err) =>
    diag('server_error', { error: (err as NodeJS.ErrnoException).code ?? err.message }),
  );
  const addr = srv.address() as AddressInfo;
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  if (port === 0) writeLastPort(home, host, addr.port);
  return { server: srv, conns, port: addr.port, url: `http://${shownHost}:${addr.port}` };
}
