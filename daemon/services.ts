import type { StoreNotices } from './store/notices.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Clock } from '../lib/clock.js';
import { readFileNoFollow, writeFileAtomicSync } from './lifecycle/no-follow.js';
import { homePaths } from '../lib/home.js';
import { defaultCatalog, type Catalog } from '../catalog/catalog.js';
import { openDb, type Db } from './store/db.js';
import { TeamServer, readCursorKey } from './store/team-server.js';
import { SqliteSql } from './store/sqlite-sql.js';
import { STORE_DOMAINS, STORE_MIGRATIONS } from './domains/list.js';
import { workflowDomain } from './workflow/domain.js';
import type { SqlStore } from './store/sql.js';
import type { StoreUrl } from '../lib/store-url.js';
import type { IdempotencyLimits } from './store/idempotency.js';
import type { Caller, ServerApi } from './store/server-api.js';
import type { ApprovalStore } from './store/approvals.js';
import { ProfileStore, type ReloadResult } from './profile/profile-store.js';
import type { CursorCodec } from './store/cursor.js';
import type { Registry } from './exec/registry.js';
import { builtinRegistry } from './exec/builtin.js';
import { MessageStore, type MessageApi } from './store/messages.js';
import { conversationDomain, type ConversationStore } from './store/conversations.js';
import { createTurnLookup } from './store/turn-lookup.js';
import { turnDomain, type TurnStore } from './store/turns.js';
import { delegatedScopeDomain, type DelegatedScopeStore } from './store/delegated-scopes.js';
import { deviceDomain, type DeviceStore } from './store/devices.js';
import { MemoryIndexes } from './knowledge/memory.js';
import { KnowledgeBase } from './knowledge/kb.js';
import type { KnowledgeServices } from './knowledge/tools.js';
import { ScheduleDelivery } from './store/schedule-delivery.js';
import { Scheduler } from './schedule/scheduler.js';
import { withMessageTriggers } from './schedule/message-triggers.js';
import { ExtensionStore } from './extensions/store.js';
import { ResultGate } from './results/gate.js';
import type { SecretSet } from './masking/secrets.js';
import { SpillStore } from './results/spill.js';
import { profileSource } from './masking/sources.js';
import { maskedWriter } from './masking/log.js';
import { ToolRegistry } from './tools/registry.js';
import { AuditStore } from './store/audit.js';
import { AuditWriter } from './store/audit-writer.js';
import { AuditReader } from './store/audit-reader.js';
import { AuditRecorder } from './audit/recorder.js';
import { AuditTrail } from './audit/trail.js';
import { readAuditSettings, type AuditSettings } from './audit/settings.js';

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
  /** The team store (SQLite or PostgreSQL) and what status says of it. */
  readonly store: SqlStore;
  /** The embedded SQLite connection, for `store backup`; null on a shared PostgreSQL store. */
  readonly sqlite: Db | null;
  readonly cursors: CursorCodec;
  readonly profile: ProfileStore;
  /** The one gate every result leaves through (mask secrets by value, bound size). */
  readonly gate: ResultGate;
  /** Diagnostics of the daemon (to its log, masked by the log's writer). */
  readonly diag: (event: string, detail: Record<string, unknown>) => void;
  /** Messages (MCP message tools and the operator message routes). */
  readonly messages: MessageApi;
  /** Conversations and each person's read marks. */
  readonly conversations: ConversationStore;
  /** Memory and knowledge retrieval (indexes in $AGENTTEAM_HOME/index/, apart from the store). */
  readonly knowledge: KnowledgeServices;
  /** Delivers scheduled messages; started by the daemon (openDaemonParts), driven by hand in tests. */
  readonly scheduler: Scheduler;
  /** The people's side of approvals (operator API). */
  readonly approvals: ApprovalStore;
  /** Committed writes of messages, approvals and tasks, for the event stream. */
  readonly notices: StoreNotices;
  /** Installed extensions and the runtime catalog new authorizations pin. */
  readonly extensions: ExtensionStore;
  /** The one registry of what agents can call over MCP (built-in, declared, client tools). */
  readonly tools: ToolRegistry;
  /** The audit trail the call sites record into; null when audit.json turns it off. */
  readonly audit: AuditTrail | null;
  /** The recorded trail, for the operator's reads (kept readable when recording is off). */
  readonly auditLog: AuditStore;
  /** Turns in the team store (the turn engine claims, runs and ends them). */
  readonly turns: TurnStore;
  readonly delegatedScopes: DelegatedScopeStore;
  /** Paired devices (their hashed tokens), owned by this home. */
  readonly devices: DeviceStore;
  /** This home's stable name on the store (instance.id): what its turn claims carry. */
  readonly instance: string;
  /** The team server as seen by one caller (server id + agent id). */
  server(caller: Caller): ServerApi;
  /** Re-reads profile.json; an invalid file is logged and the previous profile kept. */
  reloadProfile(): ReloadResult;
  /** Stops the scheduler (waiting for a delivery in progress), then closes the store. */
  close(): Promise<void>;
}

interface OpenServicesOptions {
  readonly home: string;
  readonly clock: Clock;
  /** What the result gate masks (made by the daemon before its log: daemonSecrets()); profile and store values are added here. */
  readonly secrets: SecretSet;
  readonly catalog?: Catalog;
  /** Where operator-facing problems (an invalid profile) are reported. */
  readonly log?: (message: string) => void;
  /** Expiry window and record bound of idempotency records (defaults in store/idempotency.ts). */
  readonly idempotency?: IdempotencyLimits;
  /** Structured diagnostics of background work (scheduled deliveries, extension loading); default: the log. */
  readonly diag?: (event: string, detail: Record<string, unknown>) => void;
  /** Which names a profile's denyTools may hold (client tools ever registered, fallback tools). */
  readonly denyable?: (name: string) => boolean;
  /** A shared PostgreSQL team store; without it, the embedded SQLite file in the home. */
  readonly store?: StoreUrl;
  /** Test fault point: hold each scheduled delivery's transaction open this long before it commits. */
  readonly holdDeliveryMs?: number;
  /** Tests only: open the SQLite store of another home (a second "daemon" on one file). */
  readonly sqlitePath?: string;
  /** The audit trail's settings; default: $AGENTTEAM_HOME/audit.json (or the defaults without it). */
  readonly audit?: AuditSettings;
}

/**
 * How often a daemon on a shared database looks for due schedules written by
 * other daemons (its own changes wake it at once). A due message is sent at
 * most this late by a daemon that did not create it, e.g. after its creator died.
 */
const SHARED_STORE_POLL_MS = 1_000;

export async function openServices(opts: OpenServicesOptions): Promise<Services> {
  const paths = homePaths(opts.home);
  const catalog = opts.catalog ?? defaultCatalog();
  // A bad audit.json stops the start here, before the store is opened.
  const auditSettings = opts.audit ?? readAuditSettings(opts.home);
  // Registry first: a missing or duplicate handler must stop the daemon before it touches the store.
  const registry = builtinRegistry(catalog);
  const secrets = opts.secrets;
  // Whatever the caller's sink, lines are masked on the way to it (the log's writer).
  const log = maskedWriter(secrets, opts.log ?? ((m: string) => process.stderr.write(`${m}\n`)));
  const diag =
    opts.diag ??
    ((event: string, detail: Record<string, unknown>) => log(`${event} ${JSON.stringify(detail)}`));
  let db: Db | null = null;
  let sql: SqlStore;
  let auditWriter: AuditWriter | null = null;
  let auditReader: AuditReader | null = null;
  if (opts.store) {
    // Loaded only for a shared store: node-postgres takes ~55 ms to load, which a daemon on SQLite need not pay at start.
    const { openPostgresStore } = await import('./store/postgres/open.js');
    sql = await openPostgresStore(
      opts.store,
      (message) => diag('store', { message }),
      STORE_MIGRATIONS,
    );
  } else {
    // Normal WAL locking: support tools, sqlite3 and `store backup` can read the store while the daemon runs.
    const path = opts.sqlitePath ?? paths.store;
    db = openDb(path, STORE_MIGRATIONS);
    sql = new SqliteSql(db, path);
    // Audit rows are written by a thread of their own, with its own connection (started below, once the store is migrated).
    if (auditSettings.enabled) auditWriter = new AuditWriter(path);
    // ...and read by another (started on the first read), even with the trail off: rows already there stay readable.
    auditReader = new AuditReader(path);
  }
  const now = () => opts.clock.now();
  let embedded: TeamServer;
  const instance = instanceId(opts.home);
  try {
    embedded = new TeamServer(
      sql,
      now,
      await readCursorKey(sql),
      STORE_DOMAINS,
      opts.idempotency,
      instance,
    );
  } catch (err) {
    await sql.close();
    throw err;
  }
  const profile = new ProfileStore(
    paths.profile,
    log,
    opts.denyable ? { denyable: opts.denyable } : {},
  );
  secrets.add(profileSource(() => ({ profile: profile.profile, revision: profile.revision })));
  const storePassword = opts.store?.password;
  if (storePassword)
    secrets.add({ version: () => 0, entries: () => [['AGENTTEAM_STORE_PASSWORD', storePassword]] });
  const gate = new ResultGate(secrets, new SpillStore({ dir: paths.spill, clock: opts.clock }));
  // Spill files left by an earlier daemon age out from the start, not only after the next spill.
  gate.spill.prune();
  const auditLog = new AuditStore(sql, embedded.cursors, auditWriter, auditReader);
  auditWriter?.start();
  const recorder = auditSettings.enabled
    ? new AuditRecorder(auditLog, opts.clock, auditSettings, diag)
    : null;
  const audit = recorder ? new AuditTrail(recorder, gate, now) : null;
  const knowledge: KnowledgeServices = {
    memory: new MemoryIndexes({ home: opts.home, clock: opts.clock, gate, diag }),
    kb: new KnowledgeBase({ home: opts.home, clock: opts.clock, log, gate, diag }),
    turns: createTurnLookup(sql),
  };
  const triggers = embedded.domain(workflowDomain).triggers;
  const messages = withMessageTriggers(
    new MessageStore(sql, opts.clock, embedded.notices),
    triggers,
    sql,
    (message) => diag('message_trigger_failed', { message }),
  );
  const delivery = new ScheduleDelivery(
    sql,
    messages,
    opts.holdDeliveryMs ? { holdMs: opts.holdDeliveryMs } : {},
  );
  // Other daemons write a shared database too: look for their schedules every second, not only when woken.
  const scheduler = new Scheduler(
    opts.clock,
    [delivery, triggers],
    diag,
    ...(opts.store ? [{ maxSleepMs: SHARED_STORE_POLL_MS }] : []),
  );
  embedded.schedules.onChange = () => scheduler.wake();
  triggers.onChange = () => scheduler.wake();
  let closed = false;
  return {
    gate,
    diag,
    home: opts.home,
    clock: opts.clock,
    catalog,
    registry,
    store: sql,
    sqlite: db,
    cursors: embedded.cursors,
    profile,
    knowledge,
    messages,
    scheduler,
    approvals: embedded.approvals,
    notices: embedded.notices,
    turns: embedded.domain(turnDomain),
    conversations: embedded.domain(conversationDomain),
    devices: embedded.domain(deviceDomain),
    delegatedScopes: embedded.domain(delegatedScopeDomain),
    instance,
    extensions: new ExtensionStore(opts.home, (message) => diag('extension', { message })),
    tools: new ToolRegistry(),
    audit,
    auditLog,
    server: (caller) => embedded.forCaller(caller),
    reloadProfile: () => {
      knowledge.kb.reload();
      return profile.reload();
    },
    async close() {
      if (closed) return;
      closed = true;
      knowledge.memory.close();
      knowledge.kb.close();
      await scheduler.stop();
      // Every queued audit row is written before the store closes (the in-flight requests have drained by now).
      await recorder?.close();
      await auditLog.close();
      await sql.close();
    },
  };
}

/**
 * This home's stable name (`instance.id`, 0600, made once): it scopes the
 * idempotency records of effects that only this daemon makes (profile
 * edits), so another daemon sharing the store never replays them.
 */
function instanceId(home: string): string {
  const path = join(home, 'instance.id');
  try {
    const id = readFileNoFollow(path).trim();
    if (/^[A-Za-z0-9_-]{16,64}$/.test(id)) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = randomBytes(16).toString('base64url');
  writeFileAtomicSync(path, `${id}\n`);
  return id;
}
