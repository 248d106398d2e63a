import { ExecError } from '../errors/exec-error.js';
import type { ResultGate } from '../results/gate.js';
import type { Clients } from './clients.js';
import type { Groups } from './groups.js';
import { requestView, type PendingCalls } from './requests.js';
import { answerOutcome } from './result-exit.js';
import { replyAnswer } from './stdio-calls.js';
import type { RequestView, ResultBody, StdioReply } from './types.js';

/**
 * The app's side of a parked call: the claim that makes a client its
 * group's owner for that agent, and the answer that settles it, in each
 * relay's form (an HTTP app's result, a stdio child's reply). An answer
 * passes the result gate before anything settles; a refused one leaves the
 * call pending.
 */

export interface AnswerDeps {
  readonly clients: Clients;
  readonly groups: Groups;
  readonly pending: PendingCalls;
  readonly gate: ResultGate;
}

type Settled = { request_id: string; settled: true };

export function claimRequest(
  d: AnswerDeps,
  requestId: string,
  clientId: string,
  key?: string,
): RequestView {
  d.clients.provider(clientId, key);
  const p = d.pending.get(requestId);
  if (!p)
    throw new ExecError(
      'unknown_request',
      `no pending request ${JSON.stringify(requestId)} (unknown or already settled)`,
    );
  const g = d.groups.get(p.group);
  const owner = g?.owners.get(p.agentKey);
  if (owner !== undefined && owner !== clientId) {
    throw new ExecError(
      'owned_by_other',
      `client ${owner} serves group "${p.group}" for agent ${p.ctx.principal.agentId}`,
    );
  }
  if (p.claimant !== null)
    throw new ExecError(
      'already_claimed',
      `request ${requestId} was already claimed by ${p.claimant === clientId ? 'you' : p.claimant}`,
    );
  if (!g?.providers.has(clientId))
    throw new ExecError('owned_by_other', `client ${clientId} does not provide group "${p.group}"`);
  p.claimant = clientId;
  g.owners.set(p.agentKey, clientId);
  return requestView(p);
}

export function settleResult(
  d: AnswerDeps,
  requestId: string,
  body: ResultBody,
  key?: string,
): Settled {
  d.clients.provider(body.client_id, key);
  const p = d.pending.answerable(requestId);
  if (p.claimant !== body.client_id) {
    throw new ExecError(
      'not_claimant',
      p.claimant === null
        ? `claim request ${requestId} before answering it`
        : `request ${requestId} was claimed by another client`,
    );
  }
  // Throws (validation_failed) before anything settles when the gate refuses the answer.
  const outcome = answerOutcome(
    d.gate,
    body.ok ? { content: body.content, isError: false } : body.error,
  );
  d.pending.finish(p, outcome, null);
  return { request_id: requestId, settled: true };
}

/** A stdio child's answer (status, text, optional structured JSON) to a call of its group. */
export function settleReply(
  d: AnswerDeps,
  requestId: string,
  body: StdioReply,
  key?: string,
): Settled {
  d.clients.provider(body.client_id, key);
  const p = d.pending.answerable(requestId);
  if (p.call === undefined)
    throw new ExecError(
      'invalid_request',
      `request ${requestId} is not a call of a stdio child; answer it with /result`,
    );
  if (p.claimant !== body.client_id)
    throw new ExecError('not_claimant', `request ${requestId} belongs to another client`);
  d.pending.finish(p, answerOutcome(d.gate, replyAnswer(body)), null);
  return { request_id: requestId, settled: true };
}
