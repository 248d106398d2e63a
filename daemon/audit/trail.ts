import type { AuditVia } from '../../catalog/audit.js';
import type { RuntimeRequest } from '../auth/principal.js';
import type { ResultGate } from '../results/gate.js';
import type { AuditRecorder } from './recorder.js';
import type { AuditNote } from './note.js';
import type { CallOutcome } from '../../catalog/call-outcome.js';

/** Caller-chosen strings kept in a row (tool names from the path or params, thread ids) are cut to this many UTF-8 bytes. */
const NAME_BYTES = 128;
/** Distinct names remembered in their masked form (bounded: thread ids and unknown tool names come from callers). */
const NAMES_KEPT = 256;

/**
 * The audit trail as the call observer (daemon/observe/) feeds it: one row
 * per agent call (Exec action, MCP tools/call), queued with the recorder.
 * Payloads, when the operator opted in, pass the result gate's masking here,
 * at call time, while the secrets of the moment (a runtime's current token)
 * are still known.
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

  /** `rt`: the authenticated runtime request the call was made under. */
  finish(rt: RuntimeRequest, call: FinishedCall, note: AuditNote): void {
    const { via, tool, threadId, traceId, at, elapsedMs, resultBytes, outcome } = call;
    const { principal, runtime, generationId } = rt;
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
      durationUs: Math.round(elapsedMs * 1000),
      requestBytes: note.requestBytes ?? 0,
      resultBytes,
      traceId,
      turnId: principal.turnId ?? null,
      args: settings.recordPayloads && note.input !== undefined ? this.payload(note.input) : null,
      result:
        settings.recordPayloads && note.result !== undefined ? this.payload(note.result) : null,
    });
  }

  /**
   * A person's write through the operator API (`agentteam task create`, the
   * console's Tasks page): one row naming the person as the caller, with
   * `via` and `transport` `operator`, whatever its outcome.
   */
  person(call: PersonCall): void {
    const { settings } = this.recorder;
    this.recorder.record({
      at: call.at,
      serverId: call.serverId,
      agentId: call.person,
      authorizationId: 'operator',
      generationId: '',
      runtime: 'person',
      threadId: null,
      via: 'operator',
      transport: 'operator',
      tool: this.name(call.tool),
      outcome: call.outcome,
      durationUs: Math.round(call.elapsedMs * 1000),
      requestBytes: call.requestBytes,
      resultBytes: call.resultBytes,
      traceId: null,
      turnId: null,
      args: settings.recordPayloads ? this.payload(call.input) : null,
      result:
        settings.recordPayloads && call.result !== undefined ? this.payload(call.result) : null,
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

/** What the observer knows of a call once it has finished. */
interface FinishedCall {
  readonly via: AuditVia;
  readonly tool: string;
  readonly threadId: string | null;
  readonly traceId: string | null;
  /** Start, on the daemon's clock (ms), and the time it took (ms, monotonic clock). */
  readonly at: number;
  readonly elapsedMs: number;
  readonly resultBytes: number;
  readonly outcome: CallOutcome;
}

/** The longest prefix of `s` within `n` UTF-8 bytes, on a character boundary. */
export function cutBytes(s: string, n: number): string {
  if (s.length * 3 <= n || Buffer.byteLength(s, 'utf8') <= n) return s;
  const buf = Buffer.from(s, 'utf8');
  let end = n;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** A person's write as the operator route saw it. */
interface PersonCall {
  readonly serverId: string;
  /** `human:<handle>`. */
  readonly person: string;
  /** `domain/action`. */
  readonly tool: string;
  readonly at: number;
  readonly elapsedMs: number;
  readonly outcome: CallOutcome;
  readonly requestBytes: number;
  readonly resultBytes: number;
  readonly input: unknown;
  /** The answer sent (the body, or the error envelope). */
  readonly result?: unknown;
}
