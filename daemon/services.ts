import type { Clock } from '../lib/clock.js';
import { homePaths } from '../lib/home.js';
import { defaultCatalog, type Catalog } from '../catalog/catalog.js';
import { openDb, type Db } from './store/db.js';
import { EmbeddedServer } from './store/embedded.js';
import { SqliteSql } from './store/sqlite-sql.js';
import type { IdempotencyLimits } from './store/idempotency.js';
import type { ApprovalOperatorApi, Caller, ServerApi } from './store/server-api.js';
import { ProfileStore, type ReloadResult } from './profile/profile-store.js';
import type { CursorCodec } from './exec/cursor.js';
import type { Registry } from './exec/registry.js';
import { builtinRegistry } from './handlers/index.js';
import { MessageStore, type MessageApi } from './store/messages.js';
import { createTurnLookup } from './store/turn-lookup.js';
import { MemoryIndexes } from './knowledge/memory.js';
import { KnowledgeBase } from './knowledge/kb.js';
import type { KnowledgeServices } from './knowledge/tools.js';
import { ScheduleDelivery, type DeliveryOutcome } from './store/schedule-delivery.js';
import { Scheduler, type DueSource } from './schedule/scheduler.js';
import { withMessageTriggers } from './schedule/message-triggers.js';
import { ExtensionStore } from './extensions/store.js';
import type { Inventory } from '../catalog/inventory.js';
import inventoryJson from '../catalog/agentteam-exec-action-inventory.json' with { type: 'json' };
import { ResultGate } from './results/gate.js';
import { SecretSet } from './results/secrets.js';
import { SpillStore } from './results/spill.js';
import { envSource, profileSource } from './results/sources.js';
import { ToolRegistry } from './tools/registry.js';

/**
 * Everything the daemon's routes use, opened once at start and closed at
 * stop. Handlers never reach past this: the team server through `server()`,
 * the local profile through `profile`.
 */
export interface Services {
  readonly home: string;
  readonly clock: Clock;
  readonly catalog: Catalog;
  readonly registry: Registry;
  /** The shared database handle, for stores that live beside the built-in ones (messages). */
  readonly db: Db;
  readonly cursors: CursorCodec;
  readonly profile: ProfileStore;
  /** The one gate every result leaves through (mask secrets by value, bound size). */
  readonly gate: ResultGate;
  /** Messages (MCP message tools and the operator message routes). */
  readonly messages: MessageApi;
  /** Memory and knowledge retrieval (indexes in $AGENTTEAM_HOME/index/, apart from the store). */
  readonly knowledge: KnowledgeServices;
  /** Delivers scheduled messages; started by the daemon (openDaemonParts), driven by hand in tests. */
  readonly scheduler: Scheduler;
  /** The people's side of approvals (operator API). */
  readonly approvals: ApprovalOperatorApi;
  /** Installed extensions and the runtime catalog new authorizations pin. */
  readonly extensions: ExtensionStore;
  /** The one registry of what agents can call over MCP (built-in, declared, client tools). */
  readonly tools: ToolRegistry;
  /** The team server as seen by one caller (server id + agent id). */
  server(caller: Caller): ServerApi;
  /** Re-reads profile.json; an invalid file is logged and the previous profile kept. */
  reloadProfile(): ReloadResult;
  close(): void;
}

export interface OpenServicesOptions {
  readonly home: string;
  readonly clock: Clock;
  readonly catalog?: Catalog;
  /** Where operator-facing problems (an invalid profile) are reported. */
  readonly log?: (message: string) => void;
  /** Expiry window and record bound of idempotency records (defaults in store/idempotency.ts). */
  readonly idempotency?: IdempotencyLimits;
  /** Structured diagnostics of background work (scheduled deliveries, extension loading); default: the log. */
  readonly diag?: (event: string, detail: Record<string, unknown>) => void;
  /** Which names a profile's denyTools may hold (client tools ever registered, fallback tools). */
  readonly denyable?: (name: string) => boolean;
}

export function openServices(opts: OpenServicesOptions): Services {
  const paths = homePaths(opts.home);
  const catalog = opts.catalog ?? defaultCatalog();
  // Registry first: a missing or duplicate handler must stop the daemon before it touches the store.
  const registry = builtinRegistry(catalog);
  // Normal WAL locking: support tools, sqlite3 and `store backup` can read the store while the daemon runs.
  const db = openDb(paths.store);
  const now = () => opts.clock.now();
  const sql = new SqliteSql(db, paths.store);
  const embedded = new EmbeddedServer(db, sql, now, opts.idempotency);
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const profile = new ProfileStore(paths.profile, log, opts.denyable ? { denyable: opts.denyable } : {});
  const knowledge: KnowledgeServices = {
    memory: new MemoryIndexes({ home: opts.home, clock: opts.clock }),
    kb: new KnowledgeBase({ home: opts.home, clock: opts.clock, log }),
    turns: createTurnLookup(db),
  };
  const triggers = embedded.workflows.triggers;
  // TEMPORARY (branch h3): message-triggers.ts still calls a synchronous listener; run the async one in its own transaction.
  const messages = withMessageTriggers(new MessageStore(db, opts.clock), {
    onMessage: (serverId, target, id) => {
      sql.tx((q) => triggers.onMessage(q, serverId, target, id)).catch((err: Error) => process.stderr.write(`message trigger failed: ${err.message}\n`));
    },
  });
  const diag = opts.diag ?? ((event: string, detail: Record<string, unknown>) => log(`${event} ${JSON.stringify(detail)}`));
  const dueTriggers = syncDueSource(triggers, opts.clock, () => scheduler.wake(), diag);
  const scheduler = new Scheduler(opts.clock, [new ScheduleDelivery(db, messages), dueTriggers], diag);
  embedded.schedules.onChange = () => scheduler.wake();
  triggers.onChange = () => dueTriggers.refresh();
  const secrets = new SecretSet();
  secrets.add(envSource());
  secrets.add(profileSource(() => ({ profile: profile.profile, revision: profile.revision })));
  const gate = new ResultGate(secrets, new SpillStore({ dir: paths.spill, clock: opts.clock }));
  // Spill files left by an earlier daemon age out from the start, not only after the next spill.
  gate.spill.prune();
  let closed = false;
  return {
    gate,
    home: opts.home,
    clock: opts.clock,
    catalog,
    registry,
    db,
    cursors: embedded.cursors,
    profile,
    knowledge,
    messages,
    scheduler,
    approvals: embedded.approvals,
    extensions: new ExtensionStore(opts.home, inventoryJson as Inventory, (message) => diag('extension', { message })),
    tools: new ToolRegistry(),
    server: (caller) => embedded.forCaller(caller),
    reloadProfile: () => {
      knowledge.kb.reload();
      return profile.reload();
    },
    close() {
      if (closed) return;
      closed = true;
      knowledge.memory.close();
      knowledge.kb.close();
      scheduler.stop();
      db.close();
    },
  };
}

/**
 * TEMPORARY (branch h3, dropped when the scheduler takes async sources): a
 * synchronous DueSource over the workflow triggers' async one. runDue starts
 * the firing and returns nothing; the firing goes on until nothing is due at
 * the clock's time, logs as the scheduler would, and wakes the scheduler with
 * the next due time, which nextDueAt answers from memory (null while firing).
 */
function syncDueSource(
  src: { runDue(now: number): Promise<DeliveryOutcome[]>; nextDueAt(): Promise<number | null> },
  clock: Clock, wake: () => void, log: (event: string, detail: Record<string, unknown>) => void,
): DueSource & { refresh(): void } {
  let next: number | null = null;
  let running = false;
  /** A change arrived while firing: look again once the firing is done. */
  let stale = false;
  const settle = async (at: number | null) => {
    for (;;) {
      if (at !== null) for (const r of await src.runDue(at)) if (!r.delivered || r.late) log('schedule_run', { ...r });
      next = await src.nextDueAt();
      if (next === null || next > clock.now()) return;
      at = clock.now();
    }
  };
  const start = (at: number | null) => {
    running = true;
    stale = false;
    settle(at)
      .catch((err: Error) => log('schedule_failed', { error: err.message }))
      .finally(() => {
        running = false;
        if (stale) start(null);
        else wake();
      });
  };
  return {
    runDue(now) {
      if (!running) start(now);
      return [];
    },
    nextDueAt: () => (running ? null : next),
    refresh() {
      if (running) stale = true;
      else start(null);
    },
  };
}
