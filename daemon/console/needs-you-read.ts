import type { OperatorClient } from '../../lib/operator-client.js';
import type { ApprovalRow } from './pages/approvals.js';
import type { TurnView } from './turns-read.js';

/** What needs the person, as the overview leads with it. */
export interface NeedsYouData {
  readonly serverId: string;
  /** How many approvals wait on every server; `approvals` shows the first APPROVALS of them. */
  readonly waiting: number;
  readonly approvals: readonly ApprovalRow[];
  /** The newest turns that failed, were interrupted or were dropped, newest first. */
  readonly failed: readonly TurnView[];
  /** Per agent and target, the newest ended turn when it left the person's messages without a reply. */
  readonly unanswered: readonly TurnView[];
}

/** Approvals shown on the overview (the Approvals page has the rest). */
const APPROVALS = 20;
/** Turns read to find failures and unanswered messages: one page of the turn list, newest first. */
const TURNS_READ = 100;
/** Rows shown of each turn list. */
const SHOWN = 10;

const FAILED = new Set(['failed', 'interrupted', 'dropped']);

/**
 * A person's message is unanswered when the newest ended turn of the agent it
 * addressed, on its target, failed, was interrupted or dropped, or succeeded
 * without the agent posting anything (`replied` false). A turn a person
 * cancelled is their own choice, not a miss; a later turn of that agent on
 * that target that replied answers it. Bounded: the newest TURNS_READ turns
 * of the server are looked at.
 */
function unansweredOf(newest: readonly TurnView[]): TurnView[] {
  const seen = new Set<string>();
  const out: TurnView[] = [];
  for (const t of newest) {
    if (t.state === 'queued' || t.state === 'running') continue;
    const key = `${t.agentId}\n${t.target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (FAILED.has(t.state) || (t.state === 'succeeded' && t.replied === false)) out.push(t);
  }
  return out;
}

export async function readNeedsYou(op: OperatorClient, serverId: string): Promise<NeedsYouData> {
  const counts = (await op.call('approvals.pending', {})).servers;
  const approvals: ApprovalRow[] = [];
  for (const { serverId: s } of counts) {
    if (approvals.length >= APPROVALS) break;
    const page = await op.call('reads.approval.list', {
      params: { serverId: s },
      body: { status: 'pending', limit: APPROVALS - approvals.length },
    });
    approvals.push(...page.approvals.map((a) => ({ ...a, serverId: s })));
  }
  const newest = (
    await op.call('reads.turn.list', { params: { serverId }, body: { limit: TURNS_READ } })
  ).turns;
  return {
    serverId,
    waiting: counts.reduce((n, s) => n + s.pending, 0),
    approvals,
    failed: newest.filter((t) => FAILED.has(t.state)).slice(0, SHOWN),
    unanswered: unansweredOf(newest).slice(0, SHOWN),
  };
}
