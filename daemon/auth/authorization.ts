import type { RuntimeKind } from '../../catalog/runtimes.js';
import type { ClockTimer } from '../../lib/clock.js';
import type { Principal, TurnBinding } from './principal.js';
import type { PinnedCatalog } from './pinned-catalog.js';

/**
 * launching -> active -> revoked -> (gone | cleanup_retry -> gone).
 * launching and cleanup_retry count as leases just like active.
 */
type AuthState = 'launching' | 'active' | 'revoked' | 'cleanup_retry' | 'gone';

/** One signed bearer token of an authorization; valid until its own expiry unless revoked. */
export interface Generation {
  readonly id: string;
  readonly authorizationId: string;
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
  /** Issued by a forced rotation (operator route); those are capped separately, see limits.ts. */
  readonly forced: boolean;
  /** The exact signed string, kept to drop its verification-cache entry on revocation. */
  readonly token: string;
}

export interface AuthorizationInit {
  readonly serverId: string;
  readonly agentId: string;
  readonly sessionId?: string | null;
  readonly runId?: string | null;
  readonly sessionName?: string | null;
  /** The daemon mints the session and run ids (run-identity.ts) instead of taking sessionId/runId. */
  readonly mintIds?: boolean;
  readonly workdir?: string | null;
  readonly primaryThreadId?: string | null;
  readonly turn?: TurnBinding | null;
  /** A delivered turn's id and its span's `traceparent` (Principal). */
  readonly turnId?: string | null;
  readonly turnTrace?: string | null;
  readonly runtime?: RuntimeKind;
  /** Token lifetime; defaults to the store's TTL (12 h) and is capped by it. */
  readonly ttlMs?: number;
  /**
   * An authorization this one replaces; it is revoked once this one is active.
   * Without it, a live authorization for the same server, agent and (non-null)
   * session name is found and replaced all the same.
   */
  readonly replaces?: string;
  /**
   * When `run` re-leases for a runtime that outlived the daemon before: the
   * name of its private directory under runtime/ (32 hex characters) and the
   * resume secret the first lease gave it, which that name was derived from
   * (resume.ts). The new token file then has the path the runtime already
   * knows. Default: a fresh secret and the directory it names.
   */
  readonly resume?: { readonly dir: string; readonly secret: unknown };
}

/** The logical runtime authorization: immutable binding plus mutable lifecycle state. */
export class Authorization {
  state: AuthState = 'launching';
  generations: Generation[] = [];
  inFlight = 0;
  renewTimer: ClockTimer | null = null;
  renewFailures = 0;
  cleanupAttempts = 0;
  cleanupTimer: ClockTimer | null = null;
  /** Set by the first revoke: resolves when in-flight requests drained and the first removal ran. */
  revocation: Promise<void> | null = null;
  /** Called when inFlight reaches 0 while a revocation waits for the drain. */
  onDrained: (() => void) | null = null;
  readonly controller = new AbortController();

  constructor(
    readonly id: string,
    readonly principal: Principal,
    readonly catalog: PinnedCatalog,
    readonly ttlMs: number,
    readonly dir: string,
    readonly tokenFile: string,
    readonly processGeneration: number,
    readonly runtime: RuntimeKind,
    /** Names the directory (resume.ts); only the lease answer carries it, for `run` to keep. */
    readonly resumeSecret: string,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get live(): boolean {
    return this.state === 'active';
  }

  /** Counts against the 512-lease limit. */
  get isLease(): boolean {
    return this.state === 'launching' || this.state === 'active' || this.state === 'cleanup_retry';
  }
}
