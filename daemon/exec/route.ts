import type { Hono } from 'hono';
import type { RuntimeEnv } from '../auth/principal.js';
import { FORBIDDEN_REPLY } from '../http/runtime-auth.js';
import type { CallView } from '../http/call-view.js';
import { fixedResponse, JSON_TYPE, type Reply } from '../http/reply.js';
import { EXEC_ACTION_PATH } from '../http/paths.js';
import { ExecError } from '../errors/exec-error.js';
import type { ResultGate } from '../results/gate.js';
import type { Clock } from '../../lib/clock.js';
import { extensionActionOf, type Registry } from './registry.js';
import type { HandlerContext } from './context.js';
import type { Caller, ServerApi } from '../store/server-api.js';
import type { AuditTrail } from '../audit/trail.js';
import { readRequestBody, RevokedError } from '../http/body.js';
import { decodeStrictJson } from '../http/strict-json.js';
import { checkSelectors, headerOnlyRefused, headerSelector } from './selectors.js';
import { callRisk } from '../../catalog/descriptor.js';
import { execChildGate } from './effect-gate.js';
import { THREAD_HEADER } from '../http/child-gate.js';
import type { AuditNote } from '../audit/note.js';
import { observeExec } from '../observe/exec.js';
import { inRequestSpan, inRequestSpanSync } from '../observe/record.js';

/** What the Exec route uses, and nothing else (the daemon's Services satisfies it). */
export interface ExecDeps {
  readonly registry: Registry;
  readonly gate: ResultGate;
  readonly clock: Clock;
  readonly profile: HandlerContext['profile'];
  readonly cursors: HandlerContext['cursors'];
  /** One audit record per call; null when the trail is off. */
  readonly audit: AuditTrail | null;
  readonly diag: (event: string, detail: Record<string, unknown>) => void;
  /** The team server as seen by one caller. */
  server(caller: Caller): ServerApi;
}

const CLOSE_HEADERS = { ...JSON_TYPE, connection: 'close' } as const;

/** An error envelope made by the result gate (masked once; hono's gate middleware does not read it back). */
function errorReply(gate: ResultGate, err: ExecError, close = false, note?: AuditNote): Reply {
  const body = gate.errorEnvelope(err);
  if (note) {
    note.outcome = err.code;
    note.result = body;
  }
  // After 413/408 the rest of the body is unread; closing is cheaper than draining it.
  return { status: err.status, body, headers: close ? CLOSE_HEADERS : JSON_TYPE };
}

/** The call, from the selector headers to the envelope, with its observer: the hono route and the Exec lane both run this. */
export function execCall(c: CallView, services: ExecDeps): Promise<Reply> {
  return observeExec(c, services.audit, (note) => execAction(c, services, note));
}

/**
 * POST {base}/{domain}/{action}. Runs after the runtime-auth middleware has
 * authenticated, bound and admitted the request. Order of work: resolve the
 * action, the selector headers, read the body (1 MiB, absolute 5 s), strict
 * JSON, schema validation, the body's selectors (against each other and the
 * headers), the typed handler, the result boundary, the envelope. The
 * authorization's signal is checked after every await, so a revoked
 * authorization never sees a success.
 */
export function registerExecActionRoute(app: Hono<RuntimeEnv>, services: ExecDeps): void {
  // The gate's output is marked as screened; a fixed refusal is screened by the gate's middleware as before.
  const respond = (r: Reply) =>
    r.fixed ? fixedResponse(r) : services.gate.respond(r.body, r.status, r.headers);
  app.post(EXEC_ACTION_PATH, async (c) => respond(await execCall(c, services)));
  app.on(['GET', 'PUT', 'PATCH', 'DELETE'], EXEC_ACTION_PATH, () =>
    respond(
      errorReply(
        services.gate,
        new ExecError('method_not_allowed', 'actions are called with POST'),
      ),
    ),
  );
}

async function execAction(c: CallView, services: ExecDeps, note: AuditNote): Promise<Reply> {
  const fail = (err: ExecError, close = false) => errorReply(services.gate, err, close, note);
  const { principal, signal, catalog } = c.get('runtime');
  const domain = c.req.param('domain') ?? '';
  const name = c.req.param('action') ?? '';
  // An action outside the authorization's pinned catalog does not exist for it.
  const builtin = catalog.get(domain, name) ? services.registry.get(domain, name) : undefined;
  const action =
    builtin ?? (catalog.get(domain, name) ? extensionActionOf(catalog, domain, name) : undefined);
  if (action && !builtin) note.transport = 'extension';
  if (!action) {
    return fail(
      new ExecError('not_found', 'no such action', {
        hint: 'See agentteam exec --help for the domains and actions.',
      }),
    );
  }
  // Selector headers are checked before a byte of the body is read.
  const fromHeaders = headerSelector((name) => c.req.header(name), action.entry.descriptor.risk);
  if (fromHeaders instanceof ExecError) return fail(fromHeaders, true);
  let input: unknown;
  // What was read, also of a body refused part way: never the Content-Length the caller announced.
  const counted = { bytes: 0 };
  try {
    const bytes = await readRequestBody(c, { clock: services.clock, signal, counted });
    note.requestBytes = bytes.length;
    input = decodeStrictJson(bytes);
    note.input = input;
  } catch (err) {
    note.requestBytes = counted.bytes;
    if (err instanceof RevokedError || signal.aborted) return FORBIDDEN_REPLY;
    if (err instanceof ExecError)
      return fail(err, err.code === 'body_too_large' || err.code === 'read_timeout');
    // The client broke the stream (reset, aborted upload): its fault, so a 4xx.
    return fail(new ExecError('invalid_request', 'the body could not be read'), true);
  }
  const checked = action.check(input);
  if (!checked.ok) {
    return fail(
      new ExecError('validation_failed', 'the input does not match the action schema', {
        details: checked.details,
        detailsOmitted: checked.detailsOmitted,
      }),
    );
  }
  const selected = checkSelectors(input, fromHeaders, (name) => c.req.header(name));
  if (selected instanceof ExecError) return fail(selected);
  // A selector taken from a header alone joined the body: the action's schema must take it too.
  if (selected !== input && !action.check(selected).ok) return fail(headerOnlyRefused());
  input = selected;
  // An action with ops (workflow) reads or changes data by its op's risk; the gate and the boundary use that.
  const risk = callRisk(action.entry.descriptor, input);
  const gated = execChildGate(principal, c.req.header(THREAD_HEADER), risk, `${domain} ${name}`);
  if (gated) return fail(gated);
  if (signal.aborted) return FORBIDDEN_REPLY;
  let data: unknown;
  try {
    const ctx: HandlerContext = {
      principal,
      signal,
      server: services.server({
        serverId: principal.serverId,
        agentId: principal.agentId,
        ...(c.arrivedAt !== undefined ? { arrivedAt: c.arrivedAt } : {}),
      }),
      profile: services.profile,
      cursors: services.cursors,
    };
    data = await inRequestSpan(c, () => action.handler(input, ctx));
  } catch (err) {
    if (signal.aborted) return FORBIDDEN_REPLY;
    return fail(err instanceof ExecError ? err : internal(err, services.diag));
  }
  if (signal.aborted) return FORBIDDEN_REPLY;
  const policy =
    risk === action.entry.inventory.risk
      ? action.entry.inventory
      : { ...action.entry.inventory, risk };
  // The result gate: secrets masked by value, then the 64 KiB boundary (a cached read's answer is screened once).
  const out = inRequestSpanSync(c, () => services.gate.json(policy, input, data));
  if (!out.ok) return fail(out.error);
  note.result = out.body;
  return { status: 200, body: out.body, headers: JSON_TYPE };
}

function internal(err: unknown, diag: ExecDeps['diag']): ExecError {
  // The cause stays in the daemon's log; the runtime sees the closed `internal` code only.
  diag('exec_handler_failed', {
    error: err instanceof Error ? (err.stack ?? err.message) : String(err),
  });
  return new ExecError('internal', 'internal error');
}
