import type { DaemonEvent } from '../events/event.js';
import { timeoutSeconds } from './wire-spelling.js';
import { randomFillSync } from 'node:crypto';
import type { Clock, ClockTimer } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import type { CallContext } from '../tools/registry.js';
import {
  STDIO_CANCEL_REASON,
  type CallOutcome,
  type CancelReason,
  type ClientToolSpec,
  type RequestView,
} from './types.js';
import type { StdioCall, StdioCancelReason } from '../../catalog/operator/stdio-call.js';

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
  readonly call: StdioCall | undefined;
  /** The W3C trace context of the agent's call, when tracing is on: handed to the app as `_meta`. */
  readonly meta?: { readonly traceparent: string; readonly tracestate?: string } | undefined;
  claimant: string | null;
  timer: ClockTimer | null;
  readonly settle: (outcome: CallOutcome) => void;
  readonly unlisten: () => void;
}

/**
 * A fresh request id: 96 bits from the system CSPRNG. The bytes are drawn a
 * pool at a time (as crypto.randomUUID does) rather than one system call per
 * request; each id takes bytes no other id gets.
 */
const ID_BYTES = 12;
const pool = Buffer.alloc(ID_BYTES * 256);
let poolAt = pool.length;
export function newRequestId(): string {
  if (poolAt + ID_BYTES > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const id = `req_${pool.toString('base64url', poolAt, poolAt + ID_BYTES)}`;
  poolAt += ID_BYTES;
  return id;
}

/**
 * Runs `fn` when `signal` aborts; returns the undo. One listener per signal
 * however many calls wait on it (an authorization's signal is shared by all
 * its parked calls): adding and removing a listener per call on an
 * EventTarget costs more than the rest of parking the call.
 */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();
export function whenAborted(signal: AbortSignal, fn: () => void): () => void {
  let set = watchers.get(signal);
  if (!set) {
    const fns = new Set<() => void>();
    set = fns;
    watchers.set(signal, fns);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const f of [...fns]) f();
      },
      { once: true },
    );
  }
  set.add(fn);
  return () => void set.delete(fn);
}

export const agentKeyOf = (ctx: CallContext) =>
  `${ctx.principal.serverId}\u0000${ctx.principal.agentId}`;

/** The request as apps see it (event data, the pending list, a claim's answer). */
export function requestView(p: Pending): RequestView {
  const pr = p.ctx.principal;
  return {
    request_id: p.id,
    group: p.group,
    tool: p.tool.name,
    arguments: p.args,
    agent: {
      server_id: pr.serverId,
      agent_id: pr.agentId,
      session_id: pr.sessionId,
      run_id: pr.runId,
    },
    timeout_s: timeoutSeconds(p.tool),
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
class SettledIds {
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

/**
 * The parked calls: each pending until its app answers or it ends, and the
 * ids of the recently settled. How a call ends is decided here once: its
 * deadline and abort listeners are released, the agent's promise settles,
 * and the app is told of a cancellation unless the app itself went away.
 */
export class PendingCalls {
  private readonly byId = new Map<string, Pending>();
  private readonly settled = new SettledIds();

  constructor(
    private readonly clock: Clock,
    private readonly publish: (event: DaemonEvent) => void,
    /** Who may see a request in full (its group's owner for that agent, else every provider). */
    private readonly audienceOf: (p: Pending) => ReadonlySet<string>,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  add(p: Pending): void {
    this.byId.set(p.id, p);
  }

  get(id: string): Pending | undefined {
    return this.byId.get(id);
  }

  /** The unsettled calls, in the order they came; ending calls while walking it is safe (a Map's iterator allows deletes). */
  values(): IterableIterator<Pending> {
    return this.byId.values();
  }

  /** The pending request an answer is for; already_settled when its result came before. */
  answerable(requestId: string): Pending {
    const p = this.byId.get(requestId);
    if (p) return p;
    if (this.settled.has(requestId))
      throw new ExecError('already_settled', `request ${requestId} already has its result`);
    throw new ExecError(
      'unknown_request',
      `no pending request ${JSON.stringify(requestId)} (unknown or already settled)`,
    );
  }

  /** Ends every pending call `which` selects with the same outcome. */
  endWhere(which: (p: Pending) => boolean, outcome: CallOutcome, cancel: CancelReason): void {
    for (const p of this.values()) if (which(p)) this.finish(p, outcome, cancel);
  }

  /** Ends one call (once; later calls for it do nothing); `cancel` null = answered by its app. */
  finish(
    p: Pending,
    outcome: CallOutcome,
    cancel: CancelReason | null,
    stdioReason?: StdioCancelReason,
  ): void {
    if (!this.byId.delete(p.id)) return;
    if (p.timer) this.clock.clearTimeout(p.timer);
    p.unlisten();
    this.settled.add(p.id);
    if (cancel === null) {
      // answered by its app: nothing to tell
    } else if (cancel !== 'no_client' || p.claimant === null) {
      // The app is told, unless the one app that held it is the one that went away.
      const audience = p.claimant ? new Set([p.claimant]) : this.audienceOf(p);
      // A stdio child also gets the reason in the stdio contract's words (its calls alone carry `call`).
      const data = p.call
        ? {
            request_id: p.id,
            reason: cancel,
            call_reason: stdioReason ?? STDIO_CANCEL_REASON[cancel],
          }
        : { request_id: p.id, reason: cancel };
      this.publish({
        type: 'client_tool.cancelled',
        data,
        redacted: { request_id: p.id },
        audience,
      });
    }
    p.settle(outcome);
  }
}
