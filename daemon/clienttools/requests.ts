import type { ClockTimer } from '../../lib/clock.js';
import type { CallContext } from '../tools/registry.js';
import type { CallOutcome, ClientToolSpec, RequestView, StdioCallIdentity } from './types.js';

/** One parked agent call, from the broker's side. */
export interface Pending {
  readonly id: string;
  readonly group: string;
  readonly tool: ClientToolSpec;
  readonly args: Record<string, unknown>;
  readonly ctx: CallContext;
  /** server + agent: the unit of group ownership. */
  readonly agentKey: string;
  readonly createdAt: number;
  /** Calls of a stdio group: the identity the app copies into its result, and the exact deadline. */
  readonly call: (StdioCallIdentity & { readonly timeout_ms: number }) | undefined;
  /** The W3C trace context of the agent's call, when tracing is on: handed to the app as `_meta`. */
  readonly meta?: { readonly traceparent: string; readonly tracestate?: string } | undefined;
  claimant: string | null;
  timer: ClockTimer | null;
  readonly settle: (outcome: CallOutcome) => void;
  readonly unlisten: () => void;
}

export const agentKeyOf = (ctx: CallContext) => `${ctx.principal.serverId}\u0000${ctx.principal.agentId}`;

/** The request as apps see it (event data, the pending list, a claim's answer). */
export function requestView(p: Pending): RequestView {
  const pr = p.ctx.principal;
  return {
    request_id: p.id,
    group: p.group,
    tool: p.tool.name,
    arguments: p.args,
    agent: { server_id: pr.serverId, agent_id: pr.agentId, session_id: pr.sessionId, run_id: pr.runId },
    timeout_s: p.tool.timeout_s,
    created_at: new Date(p.createdAt).toISOString(),
    state: p.claimant === null ? 'pending' : 'claimed',
    claimed_by: p.claimant,
    ...(p.call ? { call: p.call } : {}),
    ...(p.meta ? { _meta: p.meta } : {}),
  };
}

/**
 * Ids of settled requests (answered, timed out, cancelled), the newest
 * `capacity`, so a late or second result is `already_settled` rather than
 * `unknown_request`. Bounded: the oldest are forgotten first.
 */
export class SettledIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 4096) {}

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
