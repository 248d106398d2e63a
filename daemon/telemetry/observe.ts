import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { ERROR_TABLE } from '../../catalog/errors.js';
import type { RuntimeRequest } from '../http/principal.js';
import { ALL_PROTOCOL_VERSIONS } from '../mcp/modern.js';
import { calls, execDuration, mcpDuration } from './instruments.js';
import { tracing, type SpanAttrs, type SpanHandle } from './tracing.js';

/**
 * The hooks at the request entry points: one call per route family. Each
 * times the request, counts it, and (when tracing is on) wraps it in a
 * server span continuing the caller's traceparent. Outcomes come from notes
 * the handlers leave (`noteOutcome`, `noteToolCall`), never from bodies.
 */

const notes = new WeakMap<object, string>();
const toolNotes = new WeakMap<
  object,
  { tool?: string | undefined; error?: string | undefined; rpc?: number }
>();

/** Records the error code a response carries (Exec error envelopes); returns the response. */
export function noteOutcome(res: Response, code: string): Response {
  notes.set(res, code);
  return res;
}

/** The tool-call outcome of one MCP request: the registered tool's name, its error code, or the JSON-RPC error. */
export function noteToolCall(
  c: Context,
  out: { ok: boolean; tool?: string; error?: string; code?: number },
): void {
  toolNotes.set(c, out.ok ? { tool: out.tool, error: out.error } : { rpc: out.code ?? -32603 });
}

const seconds = (startMs: number) => (performance.now() - startMs) / 1000;

/** A closed-set code, or a fallback that is one too. */
function closedCode(code: string | undefined, fallback: string): string {
  return code !== undefined && Object.hasOwn(ERROR_TABLE, code) ? code : fallback;
}

function statusCode(status: number): string {
  if (status === 403) return 'forbidden';
  if (status === 409) return 'busy';
  return `http_${status}`;
}

function header(c: Context, name: string): string | undefined {
  return c.req.header(name);
}

function runtimeAttrs(rt: RuntimeRequest): SpanAttrs {
  const p = rt.principal;
  return { 'agentteam.server_id': p.serverId, 'agentteam.agent_id': p.agentId };
}

const requestSpans = new WeakMap<object, SpanHandle>();

/**
 * Runs the part of a request that can make child spans (an Exec action's
 * handler, an MCP tool call) with the request's server span active, through
 * everything it awaits. The rest of the request (reading the body, framing,
 * writing the answer) runs outside, so its promises cost no async hook
 * (request-context.ts).
 */
export function inRequestSpan<T>(c: Context, fn: () => Promise<T>): Promise<T> {
  const t = tracing();
  const span = t === null ? undefined : requestSpans.get(c);
  return span === undefined ? fn() : t!.within(span, fn);
}

/** `inRequestSpan` for synchronous work (the result gate). */
export function inRequestSpanSync<T>(c: Context, fn: () => T): T {
  const t = tracing();
  const span = t === null ? undefined : requestSpans.get(c);
  return span === undefined ? fn() : t!.withinSync(span, fn);
}

/**
 * POST {exec base}/{domain}/{action}: span `exec {domain}/{action}`,
 * duration, calls by outcome. The span is made here and made active by the
 * route around its handler and its result gate (`inRequestSpan`).
 */
export async function observeExec(c: Context, run: () => Promise<Response>): Promise<Response> {
  const started = performance.now();
  const rt = c.get('runtime') as RuntimeRequest;
  const domain = c.req.param('domain') ?? '';
  const action = c.req.param('action') ?? '';
  // A name outside the pinned catalog came from the caller and is recorded as _unknown.
  const known = rt.catalog.get(domain, action) !== undefined;
  const d = known ? domain : '_unknown';
  const a = known ? action : '_unknown';
  const t = tracing();
  let span: SpanHandle | undefined;
  if (t) {
    span = t.server(
      `exec ${d}/${a}`,
      {
        'agentteam.exec.domain': d,
        'agentteam.exec.action': a,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        ...runtimeAttrs(rt),
      },
      { traceparent: header(c, 'traceparent'), tracestate: header(c, 'tracestate') },
    );
  }
  if (span) requestSpans.set(c, span);
  let res: Response;
  try {
    res = await run();
  } catch (err) {
    finishExec(started, d, a, 'internal', span);
    throw err;
  }
  finishExec(
    started,
    d,
    a,
    res.status < 300 ? 'ok' : closedCode(notes.get(res), statusCode(res.status)),
    span,
    res.status,
  );
  return res;
}

/**
 * The series one kind of request records into, resolved on its first
 * request: afterwards recording is a map lookup and a few increments, with
 * no attribute records made per request. The keys are closed sets (catalog
 * names, registered tools, error codes), so the map stays small; it is
 * bounded all the same.
 */
interface Bound {
  readonly duration: (seconds: number) => void;
  readonly calls: ((n: number) => void) | null;
}
const BOUND_MAX = 4096;
const bound = new Map<string, Bound>();

function boundFor(key: string, make: () => Bound): Bound {
  let b = bound.get(key);
  if (b === undefined) {
    if (bound.size >= BOUND_MAX) bound.clear();
    b = make();
    bound.set(key, b);
  }
  return b;
}

function finishExec(
  started: number,
  domain: string,
  action: string,
  outcome: string,
  span: SpanHandle | undefined,
  status?: number,
): void {
  const ok = outcome === 'ok';
  const b = boundFor(`exec\u0000${domain}\u0000${action}\u0000${outcome}`, () => ({
    duration: execDuration.bind(
      ok
        ? { 'agentteam.exec.domain': domain, 'agentteam.exec.action': action }
        : {
            'agentteam.exec.domain': domain,
            'agentteam.exec.action': action,
            'error.type': outcome,
          },
    ),
    calls: calls.bind({
      'agentteam.transport': 'exec',
      'agentteam.tool': `${domain}/${action}`,
      'agentteam.outcome': outcome,
    }),
  }));
  b.duration(seconds(started));
  b.calls!(1);
  if (!span) return;
  if (status !== undefined) span.set({ 'http.response.status_code': status });
  if (!ok) span.fail(outcome);
  span.end();
}

const MCP_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'server/discover',
  'subscriptions/listen',
]);
/**
 * The only `mcp.protocol.version` labels: the revisions the daemon serves.
 * A first-come set of any date-shaped value let sixteen made-up versions
 * take every slot, after which each real client was `_other` until restart.
 */
const SERVED_VERSIONS = new Set<string>(ALL_PROTOCOL_VERSIONS);
// Client-chosen string ids are recorded only when too short to be a credential (the SDKs' ids are numbers).
const SHORT_ID = /^[A-Za-z0-9_.:-]{1,24}$/;

/** The request's MCP revision when it names one: a served revision, or `_other` for any other value. */
function protocolVersion(
  c: Context,
  method: string,
  params: Record<string, unknown>,
): string | undefined {
  const meta = params._meta as Record<string, unknown> | undefined;
  const v =
    (meta !== null && typeof meta === 'object'
      ? meta['io.modelcontextprotocol/protocolVersion']
      : undefined) ??
    header(c, 'mcp-protocol-version') ??
    (method === 'initialize' ? params.protocolVersion : undefined);
  if (v === undefined) return undefined;
  return typeof v === 'string' && SERVED_VERSIONS.has(v) ? v : '_other';
}

function metaCarrier(
  params: Record<string, unknown>,
): { traceparent?: string; tracestate?: string } | undefined {
  const meta = params._meta;
  if (meta === null || typeof meta !== 'object') return undefined;
  const { traceparent, tracestate } = meta as Record<string, unknown>;
  return {
    ...(typeof traceparent === 'string' ? { traceparent } : {}),
    ...(typeof tracestate === 'string' ? { tracestate } : {}),
  };
}

/**
 * One JSON-RPC request on the MCP endpoint: span `{mcp.method.name}
 * {gen_ai.tool.name}` continuing `params._meta.traceparent`, and the
 * mcp.server.operation.duration histogram. tools/call makes the span active
 * around the tool call only (`inRequestSpan`).
 */
export async function observeMcp<T>(
  c: Context,
  id: string | number,
  method: string,
  params: Record<string, unknown>,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const m = MCP_METHODS.has(method) ? method : '_OTHER';
  const version = protocolVersion(c, method, params);
  const t = tracing();
  let span: SpanHandle | undefined;
  if (t) {
    const rt = c.get('runtime') as RuntimeRequest;
    const attrs: SpanAttrs = {
      'mcp.method.name': m,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...runtimeAttrs(rt),
    };
    const rid = String(id);
    if (typeof id === 'number' || SHORT_ID.test(rid)) attrs['jsonrpc.request.id'] = rid;
    if (version !== undefined) attrs['mcp.protocol.version'] = version;
    if (rt.principal.sessionId !== null) attrs['mcp.session.id'] = rt.principal.sessionId;
    if (m === 'tools/call') attrs['gen_ai.operation.name'] = 'execute_tool';
    // The conventions' place is params._meta; a client that only sets the HTTP header is continued too.
    const meta = metaCarrier(params);
    span = t.server(
      m,
      attrs,
      meta?.traceparent !== undefined
        ? meta
        : { traceparent: header(c, 'traceparent'), tracestate: header(c, 'tracestate') },
    );
  }
  if (span) requestSpans.set(c, span);
  let out: T;
  try {
    out = await run();
  } catch (err) {
    finishMcp(c, started, m, version, '-32603', span);
    throw err;
  }
  const status = out instanceof Response ? out.status : 200;
  finishMcp(
    c,
    started,
    m,
    version,
    m === '_OTHER' ? '-32601' : status >= 400 ? String(status) : undefined,
    span,
  );
  return out;
}

function finishMcp(
  c: Context,
  started: number,
  method: string,
  version: string | undefined,
  failed: string | undefined,
  span: SpanHandle | undefined,
): void {
  const note = toolNotes.get(c);
  let errorType = failed;
  let outcome = failed === undefined ? 'ok' : 'protocol_error';
  if (note?.rpc !== undefined) {
    errorType = String(note.rpc);
    outcome = 'protocol_error';
  } else if (note?.error !== undefined) {
    errorType = 'tool_error';
    outcome = closedCode(note.error, 'tool_error');
  }
  const tool = note?.tool;
  const b = boundFor(
    `mcp\u0000${method}\u0000${tool ?? ''}\u0000${version ?? ''}\u0000${errorType ?? ''}\u0000${outcome}`,
    () => {
      const attrs: Record<string, string> = {
        'mcp.method.name': method,
        'network.transport': 'tcp',
      };
      if (tool !== undefined) attrs['gen_ai.tool.name'] = tool;
      if (version !== undefined) attrs['mcp.protocol.version'] = version;
      if (errorType !== undefined) attrs['error.type'] = errorType;
      return {
        duration: mcpDuration.bind(attrs),
        calls:
          method === 'tools/call'
            ? calls.bind({
                'agentteam.transport': 'mcp',
                'agentteam.tool': tool ?? '_unknown',
                'agentteam.outcome': outcome,
              })
            : null,
      };
    },
  );
  b.duration(seconds(started));
  b.calls?.(1);
  if (!span) return;
  if (note?.tool !== undefined) {
    span.rename(`${method} ${note.tool}`);
    span.set({ 'gen_ai.tool.name': note.tool });
  }
  if (note?.rpc !== undefined) span.set({ 'rpc.response.status_code': String(note.rpc) });
  if (errorType !== undefined) span.fail(errorType);
  span.end();
}

/** Operator routes (/api/v1/*): a server span `{METHOD} {route}` continuing the traceparent header, when tracing is on. */
export function operatorSpans(): MiddlewareHandler {
  return async (c, next) => {
    const t = tracing();
    if (!t) return next();
    const method = c.req.method;
    const span = t.server(
      `${method} /api/v1`,
      {
        'http.request.method': method,
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
      },
      { traceparent: header(c, 'traceparent'), tracestate: header(c, 'tracestate') },
    );
    try {
      await t.within(span, next);
    } finally {
      const route =
        matchedRoutes(c)
          .filter((r) => r.method !== 'ALL')
          .at(-1)?.path ?? '/api/v1/*';
      span.rename(`${method} ${route}`);
      span.set({ 'http.route': route, 'http.response.status_code': c.res.status });
      if (c.res.status >= 400) span.fail(String(c.res.status));
      span.end();
    }
  };
}
