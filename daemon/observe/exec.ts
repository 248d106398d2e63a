import type { CallView } from '../http/call-view.js';
import { statusOutcome } from '../../catalog/call-outcome.js';
import type { AuditNote } from '../audit/note.js';
import { traceIdOf } from '../audit/trace.js';
import type { AuditTrail } from '../audit/trail.js';
import type { Reply } from '../http/reply.js';
import { THREAD_HEADER } from '../http/child-gate.js';
import { tracing, type SpanHandle } from '../telemetry/tracing.js';
import { countExec } from './metrics.js';
import { openRecord, type CallRecord } from './record.js';
import { callerAttrs, traceHeaders, turnTraceparent } from './span-attrs.js';

/**
 * POST {exec base}/{domain}/{action}: one call record, then span
 * `exec {domain}/{action}` (made active by the route around its handler and
 * result gate, `inRequestSpan`), the duration and the count by outcome, and
 * one audit row. `run` fills the record's note: the body's size, the input,
 * the result or error body as sent, and the code of an error envelope.
 */
export async function observeExec(
  c: CallView,
  trail: AuditTrail | null,
  run: (note: AuditNote) => Promise<Reply>,
): Promise<Reply> {
  const rt = c.get('runtime');
  const domain = c.req.param('domain') ?? '';
  const action = c.req.param('action') ?? '';
  // A name outside the pinned catalog came from the caller and is labelled _unknown.
  const known = rt.catalog.get(domain, action) !== undefined;
  const d = known ? domain : '_unknown';
  const a = known ? action : '_unknown';
  const t = tracing();
  const span: SpanHandle | undefined = t?.server(
    `exec ${d}/${a}`,
    {
      'agentteam.exec.domain': d,
      'agentteam.exec.action': a,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      ...callerAttrs(rt),
    },
    traceHeaders(c),
  );
  const rec = openRecord(c, 'exec', trail, span);
  rec.tool = `${domain}/${action}`;
  rec.label = `${d}/${a}`;
  let res: Reply;
  try {
    res = await run(rec.note);
  } catch (err) {
    rec.outcome = 'internal';
    finish(c, rec, d, a, undefined);
    throw err;
  }
  rec.outcome = rec.note.outcome ?? statusOutcome(res.status);
  finish(c, rec, d, a, res.status);
  return res;
}

function finish(
  c: CallView,
  rec: CallRecord,
  domain: string,
  action: string,
  status: number | undefined,
): void {
  const elapsedMs = performance.now() - rec.started;
  countExec(domain, action, rec.outcome, elapsedMs / 1000);
  const { span, trail, note } = rec;
  if (span) {
    if (status !== undefined) span.set({ 'http.response.status_code': status });
    if (rec.outcome !== 'ok') span.fail(rec.outcome);
    span.end();
  }
  if (trail === null) return;
  // Refused before its body was read: nothing was read. (The announced Content-Length is the caller's word, not a measure.)
  note.requestBytes ??= 0;
  const thread = c.req.header(THREAD_HEADER);
  trail.finish(
    c.get('runtime'),
    {
      via: 'exec',
      tool: rec.tool!,
      threadId: thread ? thread : null,
      traceId: traceIdOf(c.req.header('traceparent')) ?? traceIdOf(turnTraceparent(c)),
      at: rec.at,
      elapsedMs,
      resultBytes: note.result === undefined ? 0 : Buffer.byteLength(note.result, 'utf8'),
      outcome: rec.outcome,
    },
    note,
  );
}
