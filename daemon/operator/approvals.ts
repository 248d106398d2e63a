import { LIMITS, isWellFormedText, jsonBytes } from '../../catalog/limits.js';
import { readJsonBody } from '../http/json-body.js';
import type { Context, Hono } from 'hono';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { ApprovalOperatorApi } from '../store/server-api.js';
import type { RuntimeEnv } from '../auth/principal.js';

const ID = /^appr_[0-9A-Za-z]{6,40}$/;
/** How many servers `GET /api/v1/approvals/servers` names at most. */
const APPROVAL_SERVERS_LIMIT = 100;
const PERSON = /^human:[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function fail(c: Context, err: unknown): Response {
  return c.json(
    { ok: false, error: errorBody(err) },
    (err instanceof ExecError ? err.status : 500) as 400,
  );
}

function invalid(path: string, message: string): ExecError {
  return new ExecError('validation_failed', message, { details: [{ path, message }] });
}

/**
 * The people's side of approvals, under /api/v1 (operator token checked by
 * the app first): `GET /api/v1/approvals/{id}` and
 * `POST /api/v1/approvals/{id}/decide {decision, note?, decidedBy?}`, and
 * `GET /api/v1/approvals/servers` (the servers that hold requests, at most 100)
 * and `GET /api/v1/approvals/pending` (how many wait on each, at most 100 servers).
 */
export function registerApprovalOperatorRoutes(
  app: Hono<RuntimeEnv>,
  approvals: ApprovalOperatorApi,
): void {
  // Before `:id`: the servers that hold approval requests (a person decides across servers; the console lists them all).
  app.get('/api/v1/approvals/servers', async (c) => {
    try {
      return c.json({
        ok: true,
        data: { servers: await approvals.serversAsOperator(APPROVAL_SERVERS_LIMIT) },
      });
    } catch (err) {
      return fail(c, err);
    }
  });
  // A count, so a page that shows one page of requests can say how many there are in all.
  app.get('/api/v1/approvals/pending', async (c) => {
    try {
      return c.json({
        ok: true,
        data: { servers: await approvals.pendingAsOperator(APPROVAL_SERVERS_LIMIT) },
      });
    } catch (err) {
      return fail(c, err);
    }
  });
  app.get('/api/v1/approvals/:id', async (c) => {
    try {
      const id = c.req.param('id');
      if (!ID.test(id)) throw invalid('/id', 'not an approval id');
      return c.json({ ok: true, data: await approvals.getAsOperator(id) });
    } catch (err) {
      return fail(c, err);
    }
  });
  app.post('/api/v1/approvals/:id/decide', async (c) => {
    try {
      const id = c.req.param('id');
      if (!ID.test(id)) throw invalid('/id', 'not an approval id');
      const body = (await readJsonBody(c)) as Record<string, unknown>;
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw new ExecError('invalid_request', 'the body must be an object');
      for (const k of Object.keys(body))
        if (!['decision', 'note', 'decidedBy'].includes(k)) throw invalid(`/${k}`, 'unknown field');
      const { decision, note, decidedBy } = body;
      if (decision !== 'approve' && decision !== 'reject')
        throw invalid('/decision', 'decision must be approve or reject');
      if (
        note !== undefined &&
        (typeof note !== 'string' || !fitsText(note, LIMITS.decisionNote))
      ) {
        throw invalid(
          '/note',
          `note must be a string of at most ${LIMITS.decisionNote.chars} characters and ${LIMITS.decisionNote.bytes} bytes as JSON, without unpaired surrogates`,
        );
      }
      if (decidedBy !== undefined && (typeof decidedBy !== 'string' || !PERSON.test(decidedBy)))
        throw invalid('/decidedBy', 'decidedBy must be human:<handle>');
      return c.json({
        ok: true,
        data: await approvals.decideAsOperator(
          id,
          decision,
          (note as string | undefined) ?? null,
          (decidedBy as string | undefined) ?? 'human:operator',
        ),
      });
    } catch (err) {
      return fail(c, err);
    }
  });
}

function fitsText(s: string, l: { chars: number; bytes: number }): boolean {
  return isWellFormedText(s) && jsonBytes(s) <= l.bytes && [...s].length <= l.chars;
}
