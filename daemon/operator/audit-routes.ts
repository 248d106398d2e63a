import type { Context, Hono } from 'hono';
import { sinceMs } from '../../catalog/audit.js';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { isEntityId } from '../../catalog/ids.js';
import { ExecError, errorBody } from '../errors/exec-error.js';
import type { Clock } from '../../lib/clock.js';
import type { AuditQuery, AuditStore } from '../store/audit.js';
import { AuditSummaries } from './audit-summaries.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** A summary without --since covers the last day; the per-minute counts, the last hour. */
const SUMMARY_DEFAULT_MS = 86_400_000;
const MINUTES_DEFAULT_MS = 3_600_000;
const TOOL_MAX_BYTES = 128;
const PARAMS = new Set(['agent', 'tool', 'outcome', 'server', 'since', 'limit', 'cursor', 'after']);

function fail(c: Context, err: unknown): Response {
  return c.json(
    { ok: false, error: errorBody(err) },
    (err instanceof ExecError ? err.status : 500) as 400,
  );
}

function invalid(name: string, message: string): ExecError {
  return new ExecError('validation_failed', message, { details: [{ path: `/${name}`, message }] });
}

/** The filters of a request's query string, checked; unknown parameters are refused rather than ignored. */
function queryOf(
  c: Context,
  now: number,
  allowed: ReadonlySet<string>,
): AuditQuery & { after?: number } {
  const q = c.req.query();
  for (const k of Object.keys(q))
    if (!allowed.has(k)) throw invalid(k, `unknown parameter (known: ${[...allowed].join(', ')})`);
  const id = (k: 'agent' | 'server') => {
    if (q[k] !== undefined && !isEntityId(q[k]))
      throw invalid(
        k,
        `${k} must be an id: letters, digits, . _ - (1 to 128, starting with a letter or digit)`,
      );
    return q[k];
  };
  if (
    q.tool !== undefined &&
    (q.tool.length === 0 || Buffer.byteLength(q.tool, 'utf8') > TOOL_MAX_BYTES)
  )
    throw invalid('tool', `tool must be 1 to ${TOOL_MAX_BYTES} bytes`);
  if (q.outcome !== undefined && q.outcome !== 'ok' && !Object.hasOwn(ERROR_TABLE, q.outcome))
    throw invalid(
      'outcome',
      'outcome must be ok or an error code (see agentteam exec --error-schema)',
    );
  let since: AuditQuery['since'];
  if (q.since !== undefined) {
    const ms = sinceMs(q.since);
    if (ms === null) throw invalid('since', 'since must be a number and a unit: 90s, 15m, 1h, 7d');
    since = { text: q.since, at: now - ms };
  }
  let limit: number | undefined;
  if (q.limit !== undefined) {
    if (!/^[1-9][0-9]{0,2}$/.test(q.limit) || Number(q.limit) > 100)
      throw invalid('limit', 'limit must be an integer from 1 to 100');
    limit = Number(q.limit);
  }
  let after: number | undefined;
  if (q.after !== undefined) {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(q.after))
      throw invalid('after', 'after must be a seq (a non-negative integer)');
    if (q.cursor !== undefined) throw invalid('after', 'after and cursor do not go together');
    after = Number(q.after);
  }
  return {
    serverId: id('server'),
    agentId: id('agent'),
    tool: q.tool,
    outcome: q.outcome,
    since,
    limit,
    cursor: q.cursor,
    ...(after !== undefined ? { after } : {}),
  };
}

/**
 * The audit trail for the operator, under /api/v1 (token checked first):
 * `GET /api/v1/audit` one page newest first (filters agent, tool, outcome,
 * server, since; keyset cursor), or with `after=<seq>` the rows written
 * since, oldest first (what `agentteam audit --follow` polls);
 * `GET /api/v1/audit/summary` calls, errors and p50/p95 per tool and agent;
 * `GET /api/v1/audit/minutes` calls and errors per minute (the console's chart).
 * The last two are computed once per change and shared by every reader
 * (audit-summaries.ts), off the request thread.
 */
export function registerAuditOperatorRoutes(
  app: Hono<RuntimeEnv>,
  log: AuditStore,
  clock: Clock,
): void {
  const now = () => clock.now();
  const summaries = new AuditSummaries(log, clock);
  app.get('/api/v1/audit', async (c) => {
    try {
      const query = queryOf(c, now(), PARAMS);
      if (query.after !== undefined) {
        const entries = await log.after(query, query.after);
        return c.json({
          ok: true,
          data: {
            entries,
            lastSeq: entries.length > 0 ? entries[entries.length - 1]!.seq : query.after,
          },
        });
      }
      const { items, ...more } = await log.list(query);
      // lastSeq: where a --follow that printed this page continues.
      return c.json({
        ok: true,
        data: {
          entries: items,
          ...more,
          lastSeq: query.cursor === undefined ? await log.lastSeq() : undefined,
        },
      });
    } catch (err) {
      return fail(c, err);
    }
  });
  app.get('/api/v1/audit/summary', async (c) => {
    try {
      const t = now();
      const query = queryOf(c, t, new Set(['agent', 'tool', 'server', 'since']));
      const { since, value } = await summaries.summary(
        query.since ? t - query.since.at : SUMMARY_DEFAULT_MS,
        query,
      );
      return c.json({ ok: true, data: { since: new Date(since).toISOString(), ...value } });
    } catch (err) {
      return fail(c, err);
    }
  });
  app.get('/api/v1/audit/minutes', async (c) => {
    try {
      const t = now();
      const query = queryOf(c, t, new Set(['agent', 'tool', 'server', 'since']));
      const { since, value } = await summaries.minutes(
        query.since ? t - query.since.at : MINUTES_DEFAULT_MS,
        query,
      );
      return c.json({ ok: true, data: { since: new Date(since).toISOString(), minutes: value } });
    } catch (err) {
      return fail(c, err);
    }
  });
}
