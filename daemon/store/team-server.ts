import type { Sql, SqlStore } from './sql.js';
import { Idempotency, type IdempotencyLimits } from './idempotency.js';
import { CursorCodec } from './cursor.js';
import type { Caller, ServerApi } from './server-api.js';
import type { StoreContext } from './context.js';
import { StoreNotices } from './notices.js';
import type { StoreDomain } from './domain.js';
import { scheduleDomain, type ScheduleStore } from './schedules.js';
import { approvalDomain, type ApprovalStore } from './approvals.js';
import { actionKey, type ActionDescriptor } from '../../catalog/descriptor.js';

/** The key that signs pagination cursors, kept in the store's meta table (written by migration 001_core). */
export async function readCursorKey(sql: Sql): Promise<Buffer> {
  const key = await sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [
    'cursor_key',
  ]);
  if (!key) throw new Error('store has no cursor key; was migration 001_core applied?');
  return Buffer.from(key.value, 'base64url');
}

/** How the team server runs one action: the implementation and its domain's state. */
interface Bound {
  readonly state: unknown;
  readonly run: (s: unknown, c: Caller, input: unknown) => Promise<unknown>;
}

class TeamServerError extends Error {
  override name = 'TeamServerError';
}

/**
 * The team server: ServerApi over the store, whichever database holds it
 * (the embedded SQLite file or a team's shared PostgreSQL). It opens every
 * domain of its list (daemon/domains/list.ts) over one shared context and runs
 * their actions by `domain/action`; every entity store reaches the database
 * only through the async Sql interface.
 */
export class TeamServer {
  private readonly idempotency: Idempotency;
  private readonly ctx: StoreContext;
  private readonly opened = new Map<StoreDomain<unknown>, unknown>();
  private readonly actions = new Map<string, Bound>();
  /** Scheduled messages; the scheduler subscribes to its onChange. */
  readonly schedules: ScheduleStore;
  /** Approvals; also the operator's side (people decide). */
  readonly approvals: ApprovalStore;
  /** Also signs the daemon's own local collections (team, agent). */
  readonly cursors: CursorCodec;
  /** Committed writes of approvals and tasks (and of messages, whose store the wiring gives it). */
  readonly notices = new StoreNotices();

  /** Opens the team server on a migrated store (reads its cursor key). */
  static async open(
    sql: SqlStore,
    now: () => number,
    domains: readonly StoreDomain<unknown>[],
    idempotency: IdempotencyLimits = {},
    localScope: string | null = null,
  ): Promise<TeamServer> {
    return new TeamServer(sql, now, await readCursorKey(sql), domains, idempotency, localScope);
  }

  /**
   * `cursorKey`: readCursorKey(sql), read once at open. `localScope` names
   * this daemon on a shared store: the idempotency records of daemon-local
   * effects (profile edits) are kept per daemon, since replaying one daemon's
   * edit on another would answer "done" for a profile that was never changed.
   * `domains`: what this server implements, the daemon's list
   * (STORE_DOMAINS, daemon/domains/list.ts; tests add a fixture domain).
   */
  constructor(
    readonly sql: SqlStore,
    now: () => number,
    cursorKey: Buffer,
    domains: readonly StoreDomain<unknown>[],
    idempotency: IdempotencyLimits = {},
    private readonly localScope: string | null = null,
  ) {
    this.cursors = new CursorCodec(cursorKey);
    this.idempotency = new Idempotency(sql, now, idempotency);
    this.ctx = {
      sql,
      now,
      idempotency: this.idempotency,
      cursors: this.cursors,
      notices: this.notices,
    };
    for (const d of domains) {
      const state = this.use(d);
      for (const a of d.actions) {
        const key = actionKey(a.descriptor);
        if (this.actions.has(key))
          throw new TeamServerError(`action "${key}" is implemented twice`);
        this.actions.set(key, { state, run: a.run });
      }
    }
    this.schedules = this.use(scheduleDomain);
    this.approvals = this.use(approvalDomain);
  }

  /**
   * The state of one domain on this server, for the wiring (the workflow
   * triggers are a scheduler source and a message hook); opened once.
   */
  domain<S>(domain: StoreDomain<S>): S {
    return this.use(domain);
  }

  /** The state of one domain on this server, opened once (a domain may use another's). */
  private use<S>(domain: StoreDomain<S>): S {
    if (this.opened.has(domain)) return this.opened.get(domain) as S;
    const state = domain.open(this.ctx, (d) => this.use(d));
    this.opened.set(domain as StoreDomain<unknown>, state);
    return state;
  }

  /** The server API as seen by one caller. Cheap: two closures over the shared domains. */
  forCaller(c: Caller): ServerApi {
    const { actions, idempotency } = this;
    const call = (descriptor: ActionDescriptor, input: unknown): Promise<unknown> => {
      const key = actionKey(descriptor);
      const a = actions.get(key);
      if (!a)
        return Promise.reject(new TeamServerError(`the team server does not implement "${key}"`));
      return a.run(a.state, c, input);
    };
    return {
      // Typed by ServerApi; the input was validated against the descriptor before it came here.
      call: call as unknown as ServerApi['call'],
      // The daemon-local effect (a profile file edit) runs inside the record's
      // transaction, so a failed edit leaves no record and a repeated key
      // replays. On PostgreSQL a serialization failure re-runs the callback, and
      // the edit with it: accepted for these profile edits, since the record's
      // lock key already serializes duplicates of one key and a re-run is rare;
      // but a re-run after the first edit took effect would apply it again
      // (update: the same fields, one revision more; create/delete: reported
      // as already_exists/not_found although the first run succeeded).
      idempotent: (action, input, apply) =>
        idempotency.run(
          c,
          this.localScope ? `${action}@${this.localScope}` : action,
          input,
          async () => apply(),
        ),
    };
  }
}
