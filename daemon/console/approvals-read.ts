import {
  OperatorCallError,
  type OperatorCallInput,
  type OperatorCallOutput,
  type OperatorClient,
} from '../../lib/operator-client.js';
import type { ApprovalRow, ApprovalsData } from './pages/approvals.js';

/** Requests a page shows per server and list (the operator read's own paging does the rest). */
const PAGE = 50;
const DECIDED = ['approved', 'denied', 'expired', 'cancelled'] as const;

type ListInput = OperatorCallInput<'reads.approval.list'>['body'];
type Listed = OperatorCallOutput<'reads.approval.list'>;

/**
 * What the Approvals page shows. The newest page: on each server, the newest
 * pending requests and a cursor to the older ones when there are more, and
 * the latest decided; an older page (`server` and `cursor` from the link):
 * that server's next pending requests. Both say how many wait in all, so a
 * busy agent's requests cannot silently push another's off the page.
 */
export async function readApprovals(
  op: OperatorClient,
  defaultServer: string,
  q: { server?: string; cursor?: string },
): Promise<ApprovalsData> {
  const counts = (await op.call('approvals.pending', {})).servers;
  const waiting = counts.reduce((n, s) => n + s.pending, 0);
  const waitingOn = (s: string) => counts.find((x) => x.serverId === s)?.pending ?? 0;
  const list = (s: string, input: ListInput) =>
    op.call('reads.approval.list', { params: { serverId: s }, body: { limit: PAGE, ...input } });
  const more = (s: string, page: Listed) =>
    page.nextCursor ? [{ serverId: s, waiting: waitingOn(s), cursor: page.nextCursor }] : [];

  if (q.server !== undefined && q.cursor !== undefined) {
    const base = { waiting, decided: [], older: q.server };
    try {
      const page = await list(q.server, { status: 'pending', cursor: q.cursor });
      return {
        ...base,
        pending: page.approvals.map((a) => ({ ...a, serverId: q.server! })),
        more: more(q.server, page),
      };
    } catch (err) {
      // A cursor from an old link, or a server name typed by hand: said on the page, as Activity does.
      if (err instanceof OperatorCallError && err.status < 500)
        return { ...base, pending: [], more: [], error: err.message };
      throw err;
    }
  }

  // Every server that holds a request (an agent may have asked and gone), the default one, and those with a runtime now.
  const held = (await op.call('approvals.servers', {})).servers;
  const servers = new Set([
    defaultServer,
    ...held,
    ...(await op.call('runtimes.list', {})).runtimes.map((r) => r.serverId),
  ]);
  const pending: ApprovalRow[] = [],
    decided: ApprovalRow[] = [],
    older: ApprovalsData['more'][number][] = [];
  for (const s of servers) {
    const page = await list(s, { status: 'pending' });
    pending.push(...page.approvals.map((a) => ({ ...a, serverId: s })));
    older.push(...more(s, page));
    // One read per outcome: a read of every status would be all pending when 50 or more wait.
    for (const status of DECIDED)
      decided.push(...(await list(s, { status })).approvals.map((a) => ({ ...a, serverId: s })));
  }
  decided.sort((x, y) => (y.decidedAt ?? y.expiresAt).localeCompare(x.decidedAt ?? x.expiresAt));
  return { waiting, pending, more: older, decided: decided.slice(0, PAGE) };
}
