import { LIMITS, isWellFormedText, jsonBytes } from '../../catalog/limits.js';
import { ExecError } from '../errors/exec-error.js';
import type { ApprovalOperatorApi } from '../store/server-api.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import { actingPerson } from './auth.js';

/** How many servers `GET /api/v1/approvals/servers` names at most. */
const APPROVAL_SERVERS_LIMIT = 100;

/**
 * The people's side of approvals (catalog/operator/approvals.ts): one request,
 * a decision as a person, the servers that hold requests and how many wait on
 * each (a person decides across servers; the console lists them all).
 */
export function approvalOperatorHandlers(
  approvals: ApprovalOperatorApi,
  person: () => string,
): Pick<
  OperatorHandlers,
  'approvals.servers' | 'approvals.pending' | 'approvals.get' | 'approvals.decide'
> {
  return {
    'approvals.servers': async () => ({
      servers: await approvals.serversAsOperator(APPROVAL_SERVERS_LIMIT),
    }),
    // A count, so a page that shows one page of requests can say how many there are in all.
    'approvals.pending': async () => ({
      servers: await approvals.pendingAsOperator(APPROVAL_SERVERS_LIMIT),
    }),
    'approvals.get': ({ params }) => approvals.getAsOperator(params.id),
    'approvals.decide': ({ params, body: { decision, note, decidedBy } }, c) => {
      // The schema bounds the characters; the bytes and unpaired surrogates are checked here.
      if (note !== undefined && !fitsText(note, LIMITS.decisionNote)) {
        const message = `note must be a string of at most ${LIMITS.decisionNote.chars} characters and ${LIMITS.decisionNote.bytes} bytes as JSON, without unpaired surrogates`;
        throw new ExecError('validation_failed', message, {
          details: [{ path: '/note', message }],
        });
      }
      return approvals.decideAsOperator(
        params.id,
        decision,
        note ?? null,
        actingPerson(c, decidedBy, person()),
      );
    },
  };
}

function fitsText(s: string, l: { chars: number; bytes: number }): boolean {
  return isWellFormedText(s) && jsonBytes(s) <= l.bytes && [...s].length <= l.chars;
}
