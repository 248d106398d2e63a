import type { Context } from 'hono';
import type { AuditVia } from '../../catalog/audit.js';
import type { RuntimeRequest } from '../http/principal.js';
import type { ResultGate } from '../results/gate.js';
import type { CallContext } from '../tools/registry.js';
import type { AuditRecorder } from './recorder.js';
import type { AuditNote } from './note.js';
import { mcpTraceId, traceIdOf } from './trace.js';
import { THREAD_HEADER } from '../http/child-gate.js';

/** Caller-chosen strings kept in a row (tool names from the path or params, thread ids) are cut to this many UTF-8 bytes. */
const NAME_BYTES = 128;
/** Distinct names remembered in their masked form (bounded: thread ids and unknown tool names come from callers). */
const NAMES_KEPT = 256;

/**
 * The audit trail as the call sites see it: one short call wraps each agent
 * call (Exec action, MCP tools/call), opens a note the deeper layers may add
 * to, and queues the finished record with the recorder. Payloads, when the
 * operator opted in, pass the result gate's masking here, at call time, while
 * the secrets of the moment (a runtime's current token) are still known.
 */
export class AuditTrail {
  /** Names as a row keeps them (masked, cut), for the matcher generation they were masked under. */
  private readonly names = new Map<string, string>();
  private namesGeneration = -1;

  constructor(
    readonly recorder: AuditRecorder,
    private readonly gate: ResultGate,
    /** The daemon's clock: a row's time. */
    readonly now: () => number,
  ) {}

  /** `c` is an authenticated runtime request (the runtime-auth middleware ran). */
  finish(c: Context, call: FinishedCall, note: AuditNote): void {
    const { via, tool, threadId, traceId, at, started, resultBytes, outcome } = call;
    const { principal, runtime, generationId } = c.get('runtime') as RuntimeRequest;
    const { settings } = this.recorder;
    this.recorder.record({
      at,
      serverId: principal.serverId,
      agentId: principal.agentId,
      authorizationId: principal.authorizationId,
      generationId: generationId ?? '',
      runtime: runtime ?? 'generic',
      threadId: threadId === null ? null : this.name(threadId),
      via,
      transport: note.transport ?? via,
      tool: this.name(tool),
      outcome,
      durationUs: Math.round((performance.now() - started) * 1000),
      requestBytes: note.requestBytes ?? 0,
      resultBytes,
      traceId,
      args: settings.recordPayloads && note.input !== undefined ? this.payload(note.input) : null,
      result:
        settings.recordPayloads && note.result !== undefined ? this.payload(note.result) : null,
    });
  }

  /** Nearly every call repeats a handful of tool names: each is masked and cut once per set of secrets. */
  private name(s: string): string {
    const generation = this.gate.generation;
    if (generation !== this.namesGeneration) {
      this.names.clear();
      this.namesGeneration = generation;
    }
    if (s.length > NAME_BYTES) return cutBytes(this.gate.maskText(s), NAME_BYTES);
    let kept = this.names.get(s);
    if (kept === undefined) {
      kept = cutBytes(this.gate.maskText(s), NAME_BYTES);
      if (this.names.size >= NAMES_KEPT) this.names.clear();
      this.names.set(s, kept);
    }
    return kept;
  }

  /** Masked by value (strings and keys), serialized, cut to payloadBytes on a character boundary. */
  private payload(v: unknown): string {
    let text: string;
    try {
      text = typeof v === 'string' ? v : (JSON.stringify(this.gate.maskJson(v)) ?? 'null');
    } catch {
      return '[not recorded: the value could not be masked]';
    }
    return cutBytes(this.gate.maskText(text), this.recorder.settings.payloadBytes);
  }
}

/** What the hook knows of a call once it has finished. */
interface FinishedCall {
  readonly via: AuditVia;
  readonly tool: string;
  readonly threadId: string | null;
  readonly traceId: string | null;
  /** Start, on the daemon's clock (ms) and on the monotonic clock (performance.now()). */
  readonly at: number;
  readonly started: number;
  readonly resultBytes: number;
  readonly outcome: string;
}

/** The longest prefix of `s` within `n` UTF-8 bytes, on a character boundary. */
export function cutBytes(s: string, n: number): string {
  if (s.length * 3 <= n || Buffer.byteLength(s, 'utf8') <= n) return s;
  const buf = Buffer.from(s, 'utf8');
  let end = n;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** Exec: wraps one action call; `run` fills the note (body size, input, result, outcome of an error envelope). */
export async function auditExec(
  trail: AuditTrail | null,
  c: Context,
  run: (note: AuditNote) => Promise<Response>,
): Promise<Response> {
  const note: AuditNote = {};
  if (trail === null) return run(note);
  const at = trail.now();
  const started = performance.now();
  const res = await run(note);
  // Refused before its body was read: nothing was read. (The announced Content-Length is the caller's word, not a measure.)
  note.requestBytes ??= 0;
  const outcome =
    note.outcome ?? (res.status === 200 ? 'ok' : res.status === 403 ? 'forbidden' : 'internal');
  const tool = `${c.req.param('domain') ?? ''}/${c.req.param('action') ?? ''}`;
  const thread = c.req.header(THREAD_HEADER);
  trail.finish(
    c,
    {
      via: 'exec',
      tool,
      threadId: thread ? thread : null,
      traceId: traceIdOf(c.req.header('traceparent')),
      at,
      started,
      resultBytes: note.result === undefined ? 0 : Buffer.byteLength(note.result, 'utf8'),
      outcome,
    },
    note,
  );
  return res;
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

/** The parts of an MCP call outcome the audit reads. */
type McpOutcome = { ok: true; resultJson: string } | { ok: false; code: number; message: string };

/** MCP tools/call: wraps one call through the tool host; tool errors and transports are noted by the layers below. */
export async function auditMcp<O extends McpOutcome>(
  trail: AuditTrail | null,
  c: Context,
  params: Record<string, unknown>,
  context: (audit: AuditNote | undefined) => CallContext,
  run: (ctx: CallContext) => Promise<O>,
): Promise<O> {
  if (trail === null) return run(context(undefined));
  const at = trail.now();
  const started = performance.now();
  const note: AuditNote = {};
  note.requestBytes = readLength(c) ?? Buffer.byteLength(JSON.stringify(params), 'utf8');
  if (trail.recorder.settings.recordPayloads) note.input = params.arguments ?? {};
  const ctx = context(note);
  const out = await run(ctx);
  const result = out.ok ? out.resultJson : out.message;
  if (trail.recorder.settings.recordPayloads) note.result = result;
  const outcome = note.outcome ?? (out.ok ? 'ok' : 'invalid_request');
  const tool = typeof params.name === 'string' ? params.name : '(no name)';
  trail.finish(
    c,
    {
      via: 'mcp',
      tool,
      threadId: ctx.threadId,
      traceId: mcpTraceId(params, c.req.header('traceparent')),
      at,
      started,
      resultBytes: Buffer.byteLength(result, 'utf8'),
      outcome,
    },
    note,
  );
  return out;
}
