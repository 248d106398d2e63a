import type { IncomingMessage, ServerResponse } from 'node:http';
import { ENTITY_ID_BODY } from '../../catalog/ids.js';
import type { Authorization } from '../auth/authorization.js';
import { NodeCall } from '../http/call-view.js';
import { EXEC_ACTION_PATH } from '../http/paths.js';
import { forbiddenReply, JSON_TYPE, type Reply } from '../http/reply.js';
import { FORBIDDEN_REPLY, type Admission, type AdmissionAsk } from '../http/runtime-auth.js';
import { ExecError } from '../errors/exec-error.js';
import { execCall, type ExecDeps } from './route.js';

/**
 * The Exec lane: `POST {exec base}/{domain}/{action}` in its one canonical
 * spelling is answered straight from Node's request and response, without
 * hono's Request, Context, middleware chain and Response and the adapter
 * between them (about a fifth of the server's CPU per call; bench/README.md).
 * The work is the route's own: the same Host/Origin check, the same
 * admission, the same `execCall` (selectors, body, schema, handler, result
 * gate, observer). Anything else (another method, a query, a percent escape,
 * a Host in a form the adapter would normalise) is left to hono, so an odd
 * request meets exactly the rules it met before.
 */
interface ExecLaneDeps {
  readonly exec: ExecDeps;
  /** The Host/Origin guard's decision (http/host-origin.ts): null, or the refusal's message. */
  readonly guard: (
    host: string | undefined,
    origin: string | undefined,
    path: string,
  ) => string | null;
  readonly admission: (ask: AdmissionAsk) => Admission | Promise<Admission>;
  readonly release: (auth: Authorization) => void;
  readonly diag: (event: string, detail: Record<string, unknown>) => void;
}

/** The action path with each parameter an entity id: no empty, dot or escaped segment, no query. */
const LANE_PATH = new RegExp(`^${EXEC_ACTION_PATH.replace(/:[A-Za-z]+/g, `(${ENTITY_ID_BODY})`)}$`);
/** A Host @hono/node-server takes as it is (its own test); any other is left to it. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;

/** A request listener's front: true when the lane took the request, false to hand it to hono. */
export function execLane(
  deps: ExecLaneDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const path = req.url ?? '';
    const m = LANE_PATH.exec(path);
    if (m === null) return false;
    const call = new NodeCall(req, m, path);
    const host = call.header('host');
    if (host === undefined || !PLAIN_HOST.test(host)) return false;
    // After this turn's I/O: a body sent with its header has been parsed by then and is taken
    // whole, without a listener or a deadline watch per call (http/body.ts).
    setImmediate(run, deps, call, req, res);
    return true;
  };
}

function run(deps: ExecLaneDeps, call: NodeCall, req: IncomingMessage, res: ServerResponse): void {
  answer(deps, call)
    .then((reply) => send(deps, req, res, reply))
    .catch((err: unknown) => {
      // Only a failure to write lands here: nothing to answer with any more.
      deps.diag('internal_error', {
        path: call.path,
        error: String((err as Error)?.message ?? err),
      });
      res.destroy();
    });
}

async function answer(deps: ExecLaneDeps, call: NodeCall): Promise<Reply> {
  const refused = deps.guard(call.header('host'), call.header('origin'), call.path);
  if (refused !== null) {
    deps.diag('host_origin_refused', { path: call.path });
    return forbiddenReply(refused);
  }
  try {
    const pending = deps.admission({
      authorization: call.header('authorization'),
      serverId: call.param('serverId'),
      agentId: call.param('agentId'),
      escaped: false,
      path: call.path,
    });
    const a = pending instanceof Promise ? await pending : pending;
    if (!a.ok) return a.reply;
    try {
      call.runtime = a.runtime;
      const reply = await execCall(call, deps.exec);
      // Whatever the call produced, nothing but the 403 leaves once the runtime is revoked.
      return a.auth.signal.aborted ? FORBIDDEN_REPLY : reply;
    } finally {
      deps.release(a.auth);
    }
  } catch (err) {
    // What hono's error handler does for the route: the cause to the log, the closed envelope out.
    if (!(err instanceof ExecError))
      deps.diag('internal_error', {
        path: call.path,
        error: String((err as Error)?.message ?? err),
      });
    const status = err instanceof ExecError ? err.status : 500;
    return { status, body: deps.exec.gate.errorEnvelope(err), headers: JSON_TYPE };
  }
}

/** Unread upload discarded after an answer, at most, before the connection is closed (as hono's adapter does). */
const DRAIN_MS = 500;
const DRAIN_BYTES = 64 * 1024 * 1024;

function send(deps: ExecLaneDeps, req: IncomingMessage, res: ServerResponse, r: Reply): void {
  deps.exec.gate.sent();
  if (!req.complete && r.headers.connection !== 'close') capUnread(req);
  res.writeHead(r.status, { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) });
  res.end(r.body);
}

/**
 * A refusal made before the body was read leaves the rest of it unread: it
 * is discarded so the connection can carry the next request, but for at most
 * DRAIN_MS and DRAIN_BYTES; past either the connection is closed.
 */
function capUnread(req: IncomingMessage): void {
  let bytes = 0;
  const stop = () => req.socket.destroy();
  const timer = setTimeout(stop, DRAIN_MS);
  timer.unref();
  const onData = (chunk: Buffer) => {
    bytes += chunk.byteLength;
    if (bytes > DRAIN_BYTES) stop();
  };
  req.on('data', onData);
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
}
