import { sinceMs } from '../../catalog/audit.js';
import { ERROR_TABLE } from '../../catalog/errors.js';
import type { QueryOf } from '../../catalog/operator/route.js';
import type { auditList } from '../../catalog/operator/audit.js';
import { ExecError } from '../errors/exec-error.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import type { Clock } from '../../lib/clock.js';
import type { AuditQuery, AuditStore } from '../store/audit.js';
import { AuditSummaries } from './audit-summaries.js';

/** A summary without --since covers the last day; the per-minute counts, the last hour. */
const SUMMARY_DEFAULT_MS = 86_400_000;
const MINUTES_DEFAULT_MS = 3_600_000;
const TOOL_MAX_BYTES = 128;
/** The query of the list row; the summaries take its filters only. */
type Query = Partial<NonNullable<QueryOf<typeof auditList>>>;

function invalid(name: string, message: string): ExecError {
  return new ExecError('validation_failed', message, { details: [{ path: `/${name}`, message }] });
}

/**
 * The filters of a request's query string. The row's schema (catalog/operator/audit.ts)
 * has refused unknown parameters and checked each one's form; what it cannot say is checked here.
 */
function queryOf(q: Query, now: number): AuditQuery & { after?: number } {
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
  const limit = q.limit !== undefined ? Number(q.limit) : undefined;
  let after: number | undefined;
  if (q.after !== undefined) {
    if (q.cursor !== undefined) throw invalid('after', 'after and cursor do not go together');
    after = Number(q.after);
  }
  return {
    serverId: q.server,
    agentId: q.agent,
    tool: q.tool,
    outcome: q.outcome,
    turnId: q.turn,
    since,
    limit,
    cursor: q.cursor,
    ...(after !== undefined ? { after } : {}),
  };
}

/**
 * The audit trail for the operator, under /api/v1 (token checked first):
 * `GET /api/v1/audit` one page newest first (filters agent, tool, outcome,
 * server, turn, since; keyset cursor), or with `after=<seq>` the rows written
 * since, oldest first (what `agentteam audit --follow` polls);
 * `GET /api/v1/audit/summary` calls, errors and p50/p95 per tool and agent;
 * `GET /api/v1/audit/minutes` calls and errors per minute (the console's chart).
 * The last two are computed once per change and shared by every reader
 * (audit-summaries.ts), off the request thread.
 */
export function auditOperatorHandlers(
  log: AuditStore,
  clock: Clock,
): Pick<OperatorHandlers, 'audit.list' | 'audit.summary' | 'audit.minutes'> {
  const now = () => clock.now();
  const summaries = new AuditSummaries(log, clock);
  return {
    'audit.list': async ({ query: q }) => {
      const query = queryOf(q, now());
      if (query.after !== undefined) {
        const entries = await log.after(query, query.after);
        return {
          entries,
          lastSeq: entries.length > 0 ? entries[entries.length - 1]!.seq : query.after,
        };
      }
      const { items, ...more } = await log.list(query);
      // lastSeq: where a --follow that printed this page continues.
      const lastSeq = query.cursor === undefined ? await log.lastSeq() : undefined;
      return { entries: items, ...more, ...(lastSeq !== undefined ? { lastSeq } : {}) };
    },
    'audit.summary': async ({ query: q }) => {
      const t = now();
      const query = queryOf(q, t);
      const { since, value } = await summaries.summary(
        query.since ? t - query.since.at : SUMMARY_DEFAULT_MS,
        query,
      );
      return { since: new Date(since).toISOString(), ...value };
    },
    'audit.minutes': async ({ query: q }) => {
      const t = now();
      const query = queryOf(q, t);
      const { since, value } = await summaries.minutes(
        query.since ? t - query.since.at : MINUTES_DEFAULT_MS,
        query,
      );
      return { since: new Date(since).toISOString(), minutes: value };
    },
  };
}
