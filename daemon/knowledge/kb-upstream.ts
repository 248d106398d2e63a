import type { ValidateFunction } from 'ajv';
import { sharedValidator } from '../../lib/validator.js';
import {
  kbFetch,
  kbSearch,
  type KbFetchInput,
  type KbFetchOutput,
  type KbSearchInput,
  type KbSearchOutput,
} from '../../catalog/mcp-knowledge-tools.js';
import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import { OutboundError, postBounded, type OutboundAnswer } from '../http/outbound.js';
import type { Principal } from '../auth/principal.js';
import type { CheckedTurn } from './turn.js';
import type { ResultGate } from '../results/gate.js';
import { inSpan, withTraceHeaders } from '../telemetry/tracing.js';

/** Where a forwarded knowledge call failed; kept in error.metadata.stage. */
type UpstreamStage = 'route_missing' | 'validation' | 'scope_resolution' | 'upstream';
const STAGES: readonly UpstreamStage[] = [
  'route_missing',
  'validation',
  'scope_resolution',
  'upstream',
];

export interface UpstreamConfig {
  /** Base URL (http or https); calls go to {url}/v1/knowledge/search and /fetch. */
  readonly url: string;
  readonly timeoutMs: number;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;

const HINTS: Record<UpstreamStage, string> = {
  route_missing:
    'The knowledge service does not offer this route; knowledge search is not available here. Answer from memory_search or the conversation.',
  validation:
    'The knowledge service refused the request as invalid; simplify the query or check the docId and cursor.',
  scope_resolution:
    'The knowledge service could not resolve what this turn may read; knowledge is not available for this conversation.',
  upstream:
    'The knowledge service failed or did not answer in time; retry later, or answer from memory_search.',
};

function failure(stage: UpstreamStage, message: string): ExecError {
  return new ExecError(
    'upstream_error',
    `knowledge upstream failed at stage ${stage}: ${message}`,
    { hint: HINTS[stage], metadata: { stage } },
  );
}

/** How much of an upstream's own error message is quoted (clipped after masking, by the gate). */
const QUOTED_MESSAGE = { chars: 300, bytes: 1200 } as const;

/** The stage of an error answer: the body's own `error.stage` when it names one, else from the HTTP status. */
function stageOf(
  status: number,
  body: unknown,
  gate: Pick<ResultGate, 'clip'>,
): { stage: UpstreamStage; message: string } {
  const e = (body as { error?: { stage?: unknown; message?: unknown } } | null)?.error;
  const message =
    typeof e?.message === 'string' ? gate.clip(e.message, QUOTED_MESSAGE) : `HTTP ${status}`;
  if (e && typeof e.stage === 'string' && (STAGES as readonly string[]).includes(e.stage))
    return { stage: e.stage as UpstreamStage, message };
  if (status === 404 || status === 405 || status === 501)
    return { stage: 'route_missing', message };
  if (status === 400 || status === 422) return { stage: 'validation', message };
  if (status === 401 || status === 403) return { stage: 'scope_resolution', message };
  return { stage: 'upstream', message };
}

/**
 * Forwards kb_search / kb_fetch to a configured knowledge service with the
 * checked turn (target key, target type, message id) in headers and body.
 * The turn fields say which conversation asked; they grant nothing, the
 * service decides what that conversation may read. Answers are validated
 * against the tools' output schemas before they reach the model. Each call
 * has its own deadline and ends at once when the runtime is revoked
 * (outbound.ts).
 */
export class KnowledgeUpstream {
  private readonly checkSearch: ValidateFunction;
  private readonly checkFetch: ValidateFunction;

  constructor(
    readonly config: UpstreamConfig,
    private readonly gate: Pick<ResultGate, 'clip'>,
    private readonly clock?: Clock,
  ) {
    // The byte keyword too: an upstream answer over a stated bound is refused, never passed on.
    const ajv = sharedValidator();
    this.checkSearch = ajv.compile(kbSearch.outputSchema as object);
    this.checkFetch = ajv.compile(kbFetch.outputSchema as object);
  }

  search(
    p: Principal,
    turn: CheckedTurn,
    input: KbSearchInput,
    signal: AbortSignal,
  ): Promise<KbSearchOutput> {
    return this.call('search', p, turn, input, signal, this.checkSearch) as Promise<KbSearchOutput>;
  }

  fetch(
    p: Principal,
    turn: CheckedTurn,
    input: KbFetchInput,
    signal: AbortSignal,
  ): Promise<KbFetchOutput> {
    return this.call('fetch', p, turn, input, signal, this.checkFetch) as Promise<KbFetchOutput>;
  }

  private async call(
    op: 'search' | 'fetch',
    p: Principal,
    turn: CheckedTurn,
    input: object,
    signal: AbortSignal,
    check: ValidateFunction,
  ): Promise<unknown> {
    const url = `${this.config.url.replace(/\/+$/, '')}/v1/knowledge/${op}`;
    const body = JSON.stringify({
      ...input,
      turn: { targetKey: turn.targetKey, targetType: turn.targetType, messageId: turn.messageId },
    });
    let res: OutboundAnswer;
    try {
      res = await inSpan(
        `POST kb ${op}`,
        { 'http.request.method': 'POST', 'agentteam.kb.operation': op },
        () =>
          postBounded({
            url,
            headers: withTraceHeaders({
              'content-type': 'application/json',
              accept: 'application/json',
              'agentteam-target-key': turn.targetKey,
              'agentteam-target-type': turn.targetType,
              'agentteam-message-id': turn.messageId,
              'agentteam-server-id': p.serverId,
              'agentteam-agent-id': p.agentId,
            }),
            body,
            timeoutMs: this.config.timeoutMs,
            maxBytes: MAX_RESPONSE_BYTES,
            signal,
            ...(this.clock ? { clock: this.clock } : {}),
          }),
        'client',
      );
    } catch (err) {
      const reason = err instanceof OutboundError ? err.reason : 'unreachable';
      if (reason === 'cancelled')
        throw new ExecError('unavailable', 'the runtime authorization was revoked');
      if (reason === 'too_large')
        throw failure('upstream', `the answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
      throw failure(
        'upstream',
        reason === 'timeout'
          ? `no answer within ${this.config.timeoutMs} ms`
          : 'the knowledge service cannot be reached',
      );
    }
    const text = res.body;
    let json: unknown = null;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      json = null;
    }
    if (res.status < 200 || res.status > 299) {
      const { stage, message } = stageOf(res.status, json, this.gate);
      throw failure(stage, message);
    }
    if (json === null || !check(json))
      throw failure('upstream', `the ${op} answer does not match the kb_${op} output schema`);
    return json;
  }
}
