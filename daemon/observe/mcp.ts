import type { Context } from 'hono';
import { closedOutcome, statusOutcome, type CallOutcome } from '../../catalog/call-outcome.js';
import type { AuditNote } from '../audit/note.js';
import { mcpTraceId, traceIdOf } from '../audit/trace.js';
import type { AuditTrail } from '../audit/trail.js';
import type { RuntimeRequest } from '../auth/principal.js';
import type { CallContext } from '../tools/registry.js';
import { tracing, type SpanAttrs, type SpanHandle } from '../telemetry/tracing.js';
import { countMcp } from './metrics.js';
import { methodLabel, metaCarrier, protocolVersion, requestIdLabel } from './mcp-labels.js';
import { inRequestSpan, openRecord, recordOf, type CallRecord } from './record.js';
import { callerAttrs, traceHeaders, turnTraceparent } from './span-attrs.js';

/**
 * One JSON-RPC request on the MCP endpoint: one call record, span
 * `{mcp.method.name} {gen_ai.tool.name}` continuing
 * `params._meta.traceparent`, and the mcp.server.operation.duration
 * histogram. A tools/call is also counted by outcome and, once its tool
 * host answered (`observeToolCall`), written to the audit trail.
 */
export async function observeMcp<T>(
  c: Context,
  trail: AuditTrail | null,
  id: string | number,
  method: string,
  params: Record<string, unknown>,
  run: () => Promise<T>,
): Promise<T> {
  const m = methodLabel(method);
  const version = protocolVersion(c, method, params);
  const t = tracing();
  let span: SpanHandle | undefined;
  if (t) {
    const rt = c.get('runtime') as RuntimeRequest;
    const attrs: SpanAttrs = {
      'mcp.method.name': m,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...callerAttrs(rt),
    };
    const rid = requestIdLabel(id);
    if (rid !== undefined) attrs['jsonrpc.request.id'] = rid;
    if (version !== undefined) attrs['mcp.protocol.version'] = version;
    if (rt.principal.sessionId !== null) attrs['mcp.session.id'] = rt.principal.sessionId;
    if (m === 'tools/call') attrs['gen_ai.operation.name'] = 'execute_tool';
    // The conventions' place is params._meta; a client that only sets the HTTP header is continued too.
    const meta = metaCarrier(params);
    span = t.server(m, attrs, meta?.traceparent !== undefined ? meta : traceHeaders(c));
  }
  const rec = openRecord(c, 'mcp', m === 'tools/call' ? trail : null, span);
  let out: T;
  try {
    out = await run();
  } catch (err) {
    finish(c, rec, m, version, '-32603', 'internal');
    throw err;
  }
  const status = out instanceof Response ? out.status : 200;
  if (m === '_OTHER') finish(c, rec, m, version, '-32601', 'invalid_request');
  else if (status >= 400) finish(c, rec, m, version, String(status), statusOutcome(status));
  else finish(c, rec, m, version, undefined, 'ok');
  return out;
}

/** The parts of a tool host's answer the record reads. */
type ToolOutcome =
  | { ok: true; resultJson: string; tool?: string; error?: string }
  | { ok: false; code: number; message: string };

/**
 * tools/call: one call through the tool host, inside the request's record
 * and span. The layers below note on the record what only they know (the
 * transport, the code of a tool error result: such a result travels as a
 * successful JSON-RPC frame, so the frame alone cannot tell).
 */
export async function observeToolCall<O extends ToolOutcome>(
  c: Context,
  params: Record<string, unknown>,
  context: (note: AuditNote) => CallContext,
  run: (ctx: CallContext) => Promise<O>,
): Promise<O> {
  const rec = recordOf(c);
  if (rec === undefined) return run(context({}));
  const { note, trail } = rec;
  const payloads = trail?.recorder.settings.recordPayloads === true;
  if (trail !== null) note.requestBytes = readLength(c) ?? jsonBytes(params);
  if (payloads) note.input = params.arguments ?? {};
  const ctx = context(note);
  const out = await inRequestSpan(c, () => run(ctx));
  rec.tool = typeof params.name === 'string' ? params.name : '(no name)';
  rec.threadId = ctx.threadId;
  if (out.ok) {
    rec.label = out.tool;
    rec.outcome =
      note.outcome ?? (out.error === undefined ? 'ok' : closedOutcome(out.error, 'upstream_error'));
  } else {
    rec.rpc = out.code;
    rec.outcome = note.outcome ?? 'invalid_request';
  }
  if (trail !== null) {
    const result = out.ok ? out.resultJson : out.message;
    if (payloads) note.result = result;
    rec.resultBytes = Buffer.byteLength(result, 'utf8');
    rec.traceId = mcpTraceId(params, c.req.header('traceparent')) ?? traceIdOf(turnTraceparent(c));
  }
  return out;
}

/**
 * An MCP call's body was read whole before the call is dispatched, and the
 * HTTP parser reads exactly the Content-Length, so here (unlike a refused
 * Exec call) it is the size read.
 */
function readLength(c: Context): number | undefined {
  const length = Number(c.req.header('content-length') ?? NaN);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/**
 * The request ended: `failed` is the conventions' error.type of a request
 * that did not reach a tool (a JSON-RPC code, an HTTP status) and `outcome`
 * its call outcome; a tool call that reached the host keeps what
 * `observeToolCall` recorded.
 */
function finish(
  c: Context,
  rec: CallRecord,
  method: string,
  version: string | undefined,
  failed: string | undefined,
  outcome: CallOutcome,
): void {
  const elapsedMs = performance.now() - rec.started;
  const reached = rec.tool !== null;
  if (!reached) rec.outcome = outcome;
  // The conventions' error.type: the JSON-RPC code, or tool_error for a tool result with isError.
  const errorType =
    rec.rpc !== undefined
      ? String(rec.rpc)
      : reached && rec.outcome !== 'ok'
        ? 'tool_error'
        : failed;
  countMcp({ method, tool: rec.label, version, errorType, outcome: rec.outcome }, elapsedMs / 1000);
  const { span, trail } = rec;
  if (span) {
    if (rec.label !== undefined) {
      span.rename(`${method} ${rec.label}`);
      span.set({ 'gen_ai.tool.name': rec.label });
    }
    if (rec.rpc !== undefined) span.set({ 'rpc.response.status_code': String(rec.rpc) });
    if (errorType !== undefined) span.fail(errorType);
    span.end();
  }
  // A row for each tool call its tool host answered.
  if (trail === null || !reached) return;
  trail.finish(
    c.get('runtime') as RuntimeRequest,
    {
      via: 'mcp',
      tool: rec.tool!,
      threadId: rec.threadId,
      traceId: rec.traceId,
      at: rec.at,
      elapsedMs,
      resultBytes: rec.resultBytes,
      outcome: rec.outcome,
    },
    rec.note,
  );
}
