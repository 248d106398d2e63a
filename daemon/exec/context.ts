import type { Principal } from '../auth/principal.js';
import type { ServerApi } from '../store/server-api.js';
import type { ProfileStore } from '../profile/profile-store.js';
import type { CursorCodec } from '../store/cursor.js';

/** Everything a handler may touch. Handlers never see the HTTP request or the database. */
export interface HandlerContext {
  readonly principal: Principal;
  /** Aborted when the authorization is revoked; long handlers should stop early. */
  readonly signal: AbortSignal;
  /** The team server, bound to the caller's server and agent. */
  readonly server: ServerApi;
  /** The local profile (agents, teams) and its collection revision. */
  readonly profile: ProfileStore;
  /** Signs cursors of the daemon's own local collections. */
  readonly cursors: CursorCodec;
}
