import type { Clock, ClockTimer } from '../../lib/clock.js';
import type { AuditTrail } from '../audit/trail.js';
import type { Masked } from '../masking/masked.js';
import type { Profile } from '../profile/types.js';
import type { Approval } from '../store/approval-rows.js';
import type { ApprovalStore } from '../store/approvals.js';
import type { ApprovalOperatorApi } from '../store/server-api.js';
import { policyOf, verdict } from './policy.js';
import { nativeView } from './view.js';
import type { NativeAnswer, NativeAsk } from './ask.js';

interface NativeDeps {
  readonly store: ApprovalStore;
  readonly clock: Clock;
  readonly gate: { maskText(text: string): Masked };
  readonly profile: () => Profile;
  /** Whether a tool's trusted annotation (the daemon's registry, not the runtime) says it only reads. */
  readonly readOnly: (toolName: string) => boolean;
  readonly audit: AuditTrail | null;
  /** How often a waiting request is read again: on a shared store another daemon may decide it. */
  readonly pollMs?: number;
}

/** Turn-wide approvals remembered at once (leases × kinds); the oldest go first. */
const TURN_GRANTS_KEPT = 1024;
const POLL_MS = 1_000;
const OUTCOME = {
  approved: 'ok',
  denied: 'forbidden',
  expired: 'expired',
  cancelled: 'cancelled',
} as const;

/**
 * The one inbox for the runtimes' own permission prompts. `ask` applies the
 * agent's policy (answer without asking, or file a request and wait); a
 * waiting request ends at the first of: a person's decision (this daemon's,
 * at once; another daemon's on a shared store, at the next read), its
 * deadline (expired: the runtime is told no, fail closed) or the end of its
 * turn (`signal`: cancelled). Every request leaves a row in the approvals
 * table and one audit row naming how it ended and who decided.
 */
export class NativeApprovals implements ApprovalOperatorApi {
  private readonly wakers = new Map<string, () => void>();
  /** `turn kind` (the lease when no turn): kinds approved for the rest of that turn, dropped when it ends. */
  private readonly turnGrants = new Map<string, string>();

  constructor(private readonly d: NativeDeps) {}

  async ask(ask: NativeAsk, signal?: AbortSignal): Promise<NativeAnswer> {
    const agent = this.d.profile().agents.find((a) => a.id === ask.agent);
    const policy = policyOf(agent);
    const { title, view } = nativeView(this.d.gate, ask);
    const native = {
      runtime: ask.runtime,
      turnId: ask.turnId,
      threadId: ask.threadId,
      subagentId: ask.subagentId,
      delegated: ask.delegated,
      kind: ask.kind,
      view,
    };
    const base = {
      serverId: ask.serverId,
      agentId: ask.agent,
      title,
      waitMs: policy.deadlineSeconds * 1000,
      leaseId: ask.leaseId,
      native,
    };
    // The policy's deny rows come first: a turn-wide approval only answers what would have been asked.
    const policed = verdict(
      policy,
      ask,
      ask.toolName !== undefined && this.d.readOnly(ask.toolName),
    );
    const granted = policed.answer === 'ask' ? this.turnGrants.get(grantKey(ask)) : undefined;
    const rule = granted
      ? ({ answer: 'allow', rule: `approved for the rest of the turn by ${granted}` } as const)
      : policed;
    let row: Approval;
    if (rule.answer !== 'ask') {
      const status = rule.answer === 'allow' ? 'approved' : 'denied';
      row = await this.d.store.native.file({
        ...base,
        settled: { status, by: 'policy', note: rule.rule },
      });
    } else if (signal?.aborted) {
      const note = 'the turn had ended when the runtime asked';
      row = await this.d.store.native.file({
        ...base,
        settled: { status: 'cancelled', by: 'daemon', note },
      });
    } else {
      row = await this.wait(await this.d.store.native.file(base), signal);
    }
    this.record(ask, row);
    return this.answer(ask, row);
  }

  private answer(ask: NativeAsk, row: Approval): NativeAnswer {
    if (row.status === 'approved') {
      const scope = row.native?.scope === 'turn' ? 'turn' : 'once';
      if (scope === 'turn') {
        if (this.turnGrants.size >= TURN_GRANTS_KEPT)
          this.turnGrants.delete(this.turnGrants.keys().next().value!);
        this.turnGrants.set(grantKey(ask), row.decidedBy ?? 'a person');
      }
      return { decision: 'approved', scope, id: row.id };
    }
    const status = row.status === 'pending' ? 'cancelled' : row.status;
    const by = row.decidedBy ? ` by ${row.decidedBy}` : '';
    const why = row.note ? `: ${row.note}` : '';
    return { decision: status, reason: `${status}${by}${why}`, id: row.id };
  }

  /** Waits for the first of: a decision, the deadline, the turn's end. */
  private wait(filed: Approval, signal?: AbortSignal): Promise<Approval> {
    const id = filed.id;
    const deadline = Date.parse(filed.expiresAt);
    const clock = this.d.clock;
    return new Promise<Approval>((resolve) => {
      let done = false;
      let poll: ClockTimer | null = null;
      const finish = (a: Approval) => {
        if (done) return;
        done = true;
        this.wakers.delete(id);
        clock.clearTimeout(timer);
        if (poll) clock.clearTimeout(poll);
        signal?.removeEventListener('abort', onAbort);
        resolve(a);
      };
      const look = async () => {
        if (done) return;
        const { approval } = await this.d.store.getAsOperator(id);
        if (approval.status !== 'pending') finish(approval);
      };
      const end = async (status: 'expired' | 'cancelled', note: string) => {
        if (done) return;
        try {
          const ended = await this.d.store.native.end(id, status, 'daemon', note);
          finish(ended ?? (await this.d.store.getAsOperator(id)).approval);
        } catch {
          // The store cannot be written (closing, unreachable): the runtime is still told no.
          finish({
            ...filed,
            status,
            decidedBy: 'daemon',
            note: `${note} (not recorded: the store failed)`,
          });
        }
      };
      const timer = clock.setTimeout(
        () => void end('expired', 'no decision by the deadline'),
        Math.max(0, deadline - clock.now()),
      );
      timer.unref?.();
      // Another daemon on a shared store may decide without waking this waiter.
      const pollMs = this.d.pollMs ?? POLL_MS;
      const repoll = (ms: number) => {
        poll = clock.setTimeout(() => {
          void look()
            .catch(() => undefined)
            .then(() => !done && repoll(ms));
        }, ms);
        poll.unref?.();
      };
      repoll(pollMs);
      const onAbort = () => void end('cancelled', 'the turn ended');
      signal?.addEventListener('abort', onAbort, { once: true });
      // The turn may have ended while the request was being filed.
      if (signal?.aborted) onAbort();
      this.wakers.set(id, () => void look().catch(() => undefined));
    });
  }

  /** One audit row for the request: how it ended, who decided, why (payloads only when recorded). */
  private record(ask: NativeAsk, row: Approval): void {
    const audit = this.d.audit;
    if (!audit) return;
    const status = row.status === 'pending' ? 'cancelled' : row.status;
    const payloads = audit.recorder.settings.recordPayloads;
    const result = {
      id: row.id,
      status,
      decidedBy: row.decidedBy,
      decidedAt: row.decidedAt,
      note: row.note,
    };
    const text = (v: unknown) => this.d.gate.maskText(JSON.stringify(v));
    audit.recorder.record({
      at: Date.parse(row.createdAt),
      serverId: ask.serverId,
      agentId: ask.agent,
      authorizationId: ask.leaseId,
      generationId: '',
      runtime: ask.runtime,
      threadId: ask.threadId ?? ask.subagentId,
      via: 'runtime',
      transport: 'runtime',
      tool: `approval/${ask.kind}`,
      outcome: OUTCOME[status],
      durationUs: Math.max(0, Date.parse(row.updatedAt) - Date.parse(row.createdAt)) * 1000,
      requestBytes: 0,
      resultBytes: 0,
      traceId: null,
      turnId: ask.turnId,
      args: payloads ? text({ title: row.title, native: row.native }) : null,
      result: payloads ? text(result) : null,
    });
  }

  /**
   * A turn has ended (on this daemon or, on a shared store, another one that
   * found it stale): whatever its runtime still waits on is cancelled.
   */
  async endTurn(turnId: string): Promise<void> {
    for (const key of this.turnGrants.keys())
      if (key.startsWith(`${turnId} `)) this.turnGrants.delete(key);
    for (const id of await this.d.store.native.endTurn(turnId)) this.wakers.get(id)?.();
  }

  /** A person decides (operator API): the first decision wins; a local waiter hears of it at once. */
  async decideAsOperator(
    id: string,
    decision: 'approve' | 'reject',
    note: string | null,
    decidedBy: string,
    scope: 'once' | 'turn' | null = null,
  ): Promise<{ approval: Approval }> {
    const out = await this.d.store.decideAsOperator(id, decision, note, decidedBy, scope);
    this.wakers.get(id)?.();
    return out;
  }

  serverOf(id: string) {
    return this.d.store.serverOf(id);
  }
  getAsOperator(id: string) {
    return this.d.store.getAsOperator(id);
  }
  serversAsOperator(limit: number) {
    return this.d.store.serversAsOperator(limit);
  }
  pendingAsOperator(limit: number) {
    return this.d.store.pendingAsOperator(limit);
  }
}

const grantKey = (a: NativeAsk) => `${a.turnId ?? a.leaseId} ${a.kind}`;
