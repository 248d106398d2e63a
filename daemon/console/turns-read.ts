import type { AuditEntry } from '../../catalog/audit.js';
import {
  OperatorCallError,
  type OperatorCallInput,
  type OperatorCallOutput,
  type OperatorClient,
} from '../../lib/operator-client.js';

export type TurnView = OperatorCallOutput<'reads.turn.get'>['turn'];

/** What the Turns page shows of one server. */
export interface TurnsData {
  readonly serverId: string;
  readonly running: readonly TurnView[];
  readonly queued: readonly TurnView[];
  /** The newest turns that ended, newest first. */
  readonly ended: readonly TurnView[];
}

/** What a turn's detail shows: the turn, and the calls its runtime made (the audit trail, by turn id). */
export interface TurnDetailData {
  readonly serverId: string;
  readonly turn: TurnView | null;
  readonly calls: readonly AuditEntry[];
  readonly moreCalls: boolean;
}

/** At most this many turns per list, and calls in a turn's detail (the reads' own page sizes). */
const PAGE = 100;
const ENDED = 30;

/**
 * The Turns page's reads, through the same operator reads as `agentteam turn
 * list` (queued and running each by state, so a long queue never hides what
 * runs; then the newest turns, of which the ended are shown).
 */
export async function readTurns(op: OperatorClient, serverId: string): Promise<TurnsData> {
  const list = (body: OperatorCallInput<'reads.turn.list'>['body']) =>
    op.call('reads.turn.list', { params: { serverId }, body });
  const running = (await list({ state: 'running', limit: PAGE })).turns;
  const queued = (await list({ state: 'queued', limit: PAGE })).turns;
  const newest = (await list({ limit: PAGE })).turns;
  const ended = newest.filter((t) => t.state !== 'queued' && t.state !== 'running');
  // Oldest first: the order they were queued in, which is the order they run.
  return { serverId, running, queued: [...queued].reverse(), ended: ended.slice(0, ENDED) };
}

/** One turn (`turn show`) and its calls, newest first (`audit --turn`). */
export async function readTurnDetail(
  op: OperatorClient,
  serverId: string,
  id: string,
): Promise<TurnDetailData> {
  let turn: TurnView | null = null;
  try {
    turn = (await op.call('reads.turn.get', { params: { serverId }, body: { id } })).turn;
  } catch (err) {
    if (!(err instanceof OperatorCallError) || err.status >= 500) throw err;
  }
  if (!turn) return { serverId, turn: null, calls: [], moreCalls: false };
  const page = await op.call('audit.list', {
    query: { server: serverId, turn: turn.id, limit: String(PAGE) },
  });
  return { serverId, turn, calls: page.entries, moreCalls: page.hasMore === true };
}
