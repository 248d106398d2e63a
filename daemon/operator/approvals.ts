import { LIMITS, isWellFormedText, jsonBytes } from '../../catalog/limits.js';
import { ExecError } from '../errors/exec-error.js';
import type { ApprovalOperatorApi } from '../store/server-api.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import { actingPerson } from './auth.js';
import type { AuditTrail } from '../audit/trail.js';
import { closedOutcome } from '../../catalog/call-outcome.js';

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
  audit: AuditTrail | null,
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
    'approvals.decide': async ({ params, body }, c) => {
      const { decision, note, decidedBy, scope } = body;
      // The schema bounds the characters; the bytes and unpaired surrogates are checked here.
      if (note !== undefined && !fitsText(note, LIMITS.decisionNote)) {
        const message = `note must be a string of at most ${LIMITS.decisionNote.chars} characters and ${LIMITS.decisionNote.bytes} bytes as JSON, without unpaired surrogates`;
        throw new ExecError('validation_failed', message, {
          details: [{ path: '/note', message }],
        });
      }
      const who = actingPerson(c, decidedBy, person());
      const at = audit ? audit.now() : 0;
      const started = performance.now();
      let outcome: Parameters<AuditTrail['person']>[0]['outcome'] = 'ok';
      let result: unknown;
      try {
        const out = await approvals.decideAsOperator(params.id, decision, note ?? null, who, scope);
        result = out;
        return out;
      } catch (err) {
        outcome = closedOutcome(err instanceof ExecError ? err.code : undefined, 'internal');
        result = { error: err instanceof ExecError ? err.code : 'internal' };
        throw err;
      } finally {
        // Who decided, when, and why (the note), whether or not the decision was taken.
        audit?.person({
          serverId: (await approvals.serverOf(params.id)) ?? '',
          person: who,
          tool: 'approval/decide',
          at,
          elapsedMs: performance.now() - started,
          outcome,
          requestBytes: Buffer.byteLength(JSON.stringify(body)),
          resultBytes: Buffer.byteLength(JSON.stringify(result) ?? ''),
          input: { id: params.id, ...body },
          result,
        });
      }
    },
  };
}

function fitsText(s: string, l: { chars: number; bytes: number }): boolean {
  return isWellFormedText(s) && jsonBytes(s) <= l.bytes && [...s].length <= l.chars;
}
