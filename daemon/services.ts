import type { Clock } from '../lib/clock.js';
import { homePaths } from '../lib/home.js';
import { defaultCatalog, type Catalog } from '../catalog/catalog.js';
import { openDb, type Db } from './store/db.js';
import { EmbeddedServer } from './store/embedded.js';
import type { IdempotencyLimits } from './store/idempotency.js';
import type { Caller, ServerApi } from './store/server-api.js';
import { ProfileStore, type ReloadResult } from './profile/profile-store.js';
import type { CursorCodec } from './exec/cursor.js';
import type { Registry } from './exec/registry.js';
import { builtinRegistry } from './handlers/index.js';
import { MessageStore, type MessageApi } from './store/messages.js';

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
  /** Messages (MCP message tools and the operator message routes). */
  readonly messages: MessageApi;
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
}

export function openServices(opts: OpenServicesOptions): Services {
  const paths = homePaths(opts.home);
  const catalog = opts.catalog ?? defaultCatalog();
  // Registry first: a missing or duplicate handler must stop the daemon before it touches the store.
  const registry = builtinRegistry(catalog);
  // The daemon owns its store (one daemon per home): held exclusively while it runs.
  const db = openDb(paths.store, undefined, { exclusive: true });
  const now = () => opts.clock.now();
  const embedded = new EmbeddedServer(db, now, opts.idempotency);
  const profile = new ProfileStore(paths.profile, opts.log ?? ((m) => process.stderr.write(`${m}\n`)));
  let closed = false;
  return {
    home: opts.home,
    clock: opts.clock,
    catalog,
    registry,
    db,
    cursors: embedded.cursors,
    profile,
    messages: new MessageStore(db, opts.clock),
    server: (caller) => embedded.forCaller(caller),
    reloadProfile: () => profile.reload(),
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
