import type { ActionDescriptor, InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { approvalGet } from '../../catalog/domains/approval.js';

/* Conditional, so the compiler defers them while D is unresolved instead of expanding the schema types over ActionDescriptor. */
type In<D> = D extends ActionDescriptor ? InputOf<D> : never;
type Out<D> = D extends ActionDescriptor ? OutputOf<D> : never;

/**
 * The narrow team-server API: the only way Exec reaches the store's domains
 * (tasks, projects, reviews, schedules, approvals, workflows). One instance is bound to one caller (server id + agent id), so the
 * implementation owns scoping, idempotency records and pagination cursors —
 * exactly what a remote team server would own. The embedded SQLite store
 * implements it today; a remote client can replace it without touching handlers.
 */
export interface ServerApi {
  /**
   * Runs one catalog action the team server implements (daemon/domains/list.ts
   * lists them), with the action's own input and output types. An action the
   * server does not implement is a programming error: the Exec registry only
   * routes the actions of that list here.
   */
  call<D extends ActionDescriptor>(action: D, input: NoInfer<In<D>>): Promise<Out<D>>;
  /**
   * Runs a daemon-local effect (a profile edit) under this caller's
   * idempotency record for `action`: a repeated key replays the first result.
   * `apply` runs inside the record's transaction; on a shared database that
   * transaction may be re-run after a serialization failure, and `apply` with it.
   */
  idempotent<T>(
    action: string,
    input: { idempotencyKey?: string },
    apply: () => T | Promise<T>,
  ): Promise<T>;
}

/** What a person (the operator API) may do with approvals, on any server. */
export interface ApprovalOperatorApi {
  decideAsOperator(
    id: string,
    decision: 'approve' | 'reject',
    note: string | null,
    decidedBy: string,
    scope?: 'once' | 'turn' | null,
  ): Promise<OutputOf<typeof approvalGet>>;
  getAsOperator(id: string): Promise<OutputOf<typeof approvalGet>>;
  /** The server a request is on (null when there is no such request): what its audit row names. */
  serverOf(id: string): Promise<string | null>;
  /** The servers that hold approval requests (at most `limit`), for a person's view across servers. */
  serversAsOperator(limit: number): Promise<string[]>;
  /** How many requests wait on each server that has any (at most `limit` servers): what the console says is waiting. */
  pendingAsOperator(limit: number): Promise<{ serverId: string; pending: number }[]>;
}

/** Who is calling the server API. */
export interface Caller {
  readonly serverId: string;
  readonly agentId: string;
  /**
   * When the request behind this call was read (performance.now(); the Exec
   * lane sets it): a store change check begun after that instant has seen
   * every commit the caller could have known of, so such a check may be
   * shared instead of made again (SqlStore.changeCounter).
   */
  readonly arrivedAt?: number;
}
