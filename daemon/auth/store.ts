import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { ExecError } from '../errors/exec-error.js';
import { Authorization, type AuthorizationInit, type Generation } from './authorization.js';
import type { PinnedCatalog } from './pinned-catalog.js';
import {
  CLOCK_TOLERANCE_S,
  MAX_TOKEN_BYTES,
  type RejectReason,
  type TokenSigner,
} from './signer.js';
import { TOKEN_FILE_NAME, type TokenWriter } from './token-file.js';
import { createPrivateDir, removeDir, type DirRemover } from './private-dir.js';
import * as L from './limits.js';
import { Renewal } from './renewal.js';
import { GenerationBook } from './generations.js';
import { CleanupQueue } from './cleanup.js';
import { newResumeSecret, runtimeDirName } from './resume.js';
import { Admission } from './admission.js';
import { issueGeneration } from './issue.js';
import { runIds } from './run-identity.js';

export interface StoreDeps {
  readonly clock: Clock;
  readonly signer: TokenSigner;
  readonly writer: TokenWriter;
  readonly runtimeDir: string;
  readonly catalog: () => PinnedCatalog;
  readonly remover?: DirRemover;
  readonly random?: () => number;
  readonly defaultTtlMs?: number;
  /** Called after each generation is published (runtime drivers that copy the token, e.g. Codex). */
  readonly onPublished?: (auth: Authorization) => void;
  /** Internal diagnostics; never receives token material. */
  readonly diag?: (event: string, detail: Record<string, unknown>) => void;
}

export type AuthResult =
  | { ok: true; auth: Authorization; generationId: string }
  | { ok: false; reason: RejectReason };

interface StoreStats {
  readonly active: number;
  readonly launching: number;
  readonly cleanupDebt: number;
  readonly leases: number;
  readonly inFlight: number;
}

/**
 * The daemon-owned runtime authorization store: logical authorizations, their
 * token generations, revocation, cleanup debt and request admission.
 * Authentication always ends at a live generation record, so revocation is
 * immediate even for tokens whose signature check is cached.
 */
export class AuthorizationStore {
  private readonly auths = new Map<string, Authorization>();
  private readonly gens: GenerationBook;
  private readonly processGenerations = new Map<string, number>();
  private readonly renewal: Renewal;
  private readonly cleanup: CleanupQueue;
  private readonly admission = new Admission();
  private closed = false;
  readonly defaultTtlMs: number;

  constructor(private readonly deps: StoreDeps) {
    this.defaultTtlMs = deps.defaultTtlMs ?? L.DEFAULT_TTL_MS;
    this.gens = new GenerationBook(deps.clock, deps.diag);
    this.renewal = new Renewal(
      deps.clock,
      deps.random ?? Math.random,
      (a, forced) => this.issue(a, forced),
      deps.diag,
    );
    this.cleanup = new CleanupQueue(
      deps.clock,
      deps.remover ?? removeDir,
      (a) => this.auths.delete(a.id),
      deps.diag,
    );
  }

  get(id: string): Authorization | undefined {
    return this.auths.get(id);
  }

  /** Every authorization still holding a lease (launching, active, cleanup retry), oldest first. */
  leases(): Authorization[] {
    return [...this.auths.values()].filter((a) => a.isLease);
  }

  /** Creates, publishes and activates a new authorization, or fails with nothing left behind. */
  async create(init: AuthorizationInit): Promise<Authorization> {
    if (this.closed) throw new ExecError('unavailable', 'the daemon is shutting down');
    for (const [name, v] of [
      ['serverId', init.serverId],
      ['agentId', init.agentId],
    ] as const) {
      if (!isEntityId(v))
        throw new ExecError('invalid_request', `${name} must be ${ENTITY_ID_RULE}`);
    }
    // Every record still in the map is a lease: launching, active, or cleanup not yet finished.
    if (this.auths.size >= L.MAX_LEASES) {
      throw new ExecError(
        'busy',
        `runtime lease limit reached (${L.MAX_LEASES} active, launching or cleaning up); stop a runtime and retry`,
      );
    }
    const ttlMs = Math.min(
      this.defaultTtlMs,
      Math.max(L.MIN_TTL_MS, init.ttlMs ?? this.defaultTtlMs),
    );
    const key = `${init.serverId}\u0000${init.agentId}`;
    const processGeneration = (this.processGenerations.get(key) ?? 0) + 1;
    this.processGenerations.set(key, processGeneration);
    const id = randomBytes(12).toString('base64url');
    const resumeSecret =
      typeof init.resume?.secret === 'string' ? init.resume.secret : newResumeSecret();
    const dir = join(
      this.deps.runtimeDir,
      runtimeDirName(this.deps.runtimeDir, init.resume, resumeSecret, (d) =>
        [...this.auths.values()].some((a) => a.dir === d),
      ),
    );
    const principal = Object.freeze({
      authorizationId: id,
      serverId: init.serverId,
      agentId: init.agentId,
      ...runIds(init, dir),
      sessionName: init.sessionName ?? null,
      workdir: init.workdir ?? null,
      primaryThreadId: init.primaryThreadId ?? null,
      threadsByDriver: init.runtime === 'codex-app-server',
      turn: init.turn ? Object.freeze({ ...init.turn }) : null,
      turnId: init.turnId ?? null,
      turnTrace: init.turnTrace ?? null,
    });
    const auth = new Authorization(
      id,
      principal,
      this.deps.catalog(),
      ttlMs,
      dir,
      join(dir, TOKEN_FILE_NAME),
      processGeneration,
      init.runtime ?? 'generic',
      resumeSecret,
    );
    this.auths.set(id, auth); // reserved synchronously, before any await
    try {
      await createPrivateDir(this.deps.runtimeDir, dir);
      await this.issue(auth);
      if (auth.state !== 'launching')
        throw new ExecError('unavailable', 'the authorization was revoked during launch');
    } catch (err) {
      await this.revoke(id, 'launch_abort');
      throw err instanceof ExecError
        ? err
        : new ExecError('internal', 'could not publish the runtime credential');
    }
    auth.state = 'active';
    this.renewal.schedule(auth);
    // Replacement: the predecessor's tokens stop working and its requests drain before this answers.
    await Promise.all(
      this.predecessors(auth, init.replaces).map((p) => this.revoke(p.id, 'replaced')),
    );
    return auth;
  }

  /**
   * Older active authorizations this one replaces: the named one, and any for the same server,
   * agent and session name (unnamed runs are independent). One still launching is left alone
   * (its directory may not exist yet); it is replaced by the next launch for that session.
   */
  private predecessors(auth: Authorization, named: string | undefined): Authorization[] {
    const { serverId, agentId, sessionName = null } = auth.principal;
    const out: Authorization[] = [];
    for (const a of this.auths.values()) {
      if (a === auth) break; // insertion order: only those created before this one
      if (!a.live) continue;
      const same =
        sessionName !== null &&
        a.principal.sessionName === sessionName &&
        a.principal.serverId === serverId &&
        a.principal.agentId === agentId;
      if (same || a.id === named) out.push(a);
    }
    return out;
  }

  private issue(auth: Authorization, forced = false): Promise<Generation> {
    return issueGeneration(this.deps, this.gens, auth, forced);
  }

  /** Forces a rotation now (operator route, tests). */
  async rotateNow(id: string): Promise<Generation> {
    const auth = this.auths.get(id);
    if (!auth?.live) throw new ExecError('not_found', 'no such active runtime authorization');
    return this.renewal.rotateNow(auth, true);
  }

  get tokensVersion(): number {
    return this.gens.version;
  }

  /** Every live generation's token (current and previous of each runtime), for the result gate's masking. */
  *liveTokens(): Iterable<string> {
    yield* this.gens.tokens();
  }

  /** Token -> live authorization, or the internal reason it is refused. */
  authenticate(token: string): AuthResult | Promise<AuthResult> {
    if (token.length === 0) return { ok: false, reason: 'missing' };
    if (token.length > MAX_TOKEN_BYTES) return { ok: false, reason: 'oversize' };
    const cached = this.gens.verified(token);
    // Synchronous on a cache hit: the hot path costs no extra promise.
    if (cached) return this.checkGeneration(cached);
    return this.verifyFully(token);
  }

  private async verifyFully(token: string): Promise<AuthResult> {
    const v = await this.deps.signer.verify(token);
    if (!v.ok) return v;
    const gen = this.gens.get(v.claims.jti);
    if (!gen || gen.authorizationId !== v.claims.sub || gen.token !== token)
      return { ok: false, reason: 'revoked' };
    this.gens.rememberVerified(token, gen);
    return this.checkGeneration(gen);
  }

  private checkGeneration(gen: Generation): AuthResult {
    const auth = this.auths.get(gen.authorizationId);
    if (!auth?.live || !this.gens.has(gen.id)) return { ok: false, reason: 'revoked' };
    if (this.deps.clock.now() >= gen.expiresAtMs + CLOCK_TOLERANCE_S * 1000)
      return { ok: false, reason: 'expired' };
    return { ok: true, auth, generationId: gen.id };
  }

  /** Takes an in-flight slot, or refuses when the authorization (32) or daemon (1024) is full. */
  admit(auth: Authorization): boolean {
    return this.admission.admit(auth);
  }

  release(auth: Authorization): void {
    this.admission.release(auth);
  }

  /**
   * Stops renewal, revokes every generation, aborts in-flight work, waits for
   * it to drain (at most REVOKE_DRAIN_MS), then removes the directory.
   * Resolves after the first removal attempt; a failed removal becomes cleanup
   * debt retried in the background. Every caller gets the same promise.
   */
  revoke(id: string, reason: string): Promise<void> {
    const auth = this.auths.get(id);
    if (!auth) return Promise.resolve();
    if (auth.revocation) return auth.revocation;
    auth.state = 'revoked';
    this.renewal.cancel(auth);
    for (const g of [...auth.generations]) this.gens.drop(auth, g);
    // The reason travels with the abort, so parked work can tell a daemon shutdown from a runtime's end.
    auth.controller.abort(
      new ExecError('unavailable', 'the runtime authorization was revoked', {
        metadata: { reason },
      }),
    );
    this.deps.diag?.('revoked', { authorizationId: id, reason });
    auth.revocation = this.admission
      .drain(auth, this.deps.clock, this.deps.diag)
      .then(() => this.cleanup.start(auth));
    return auth.revocation;
  }

  /** Daemon shutdown: no new authorizations, revoke all, wait for removals (bounded by the caller). */
  async shutdown(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.auths.keys()].map((id) => this.revoke(id, 'shutdown')));
    await this.cleanup.flush();
  }

  stats(): StoreStats {
    let active = 0,
      launching = 0,
      cleanupDebt = 0;
    for (const a of this.auths.values()) {
      if (a.state === 'active') active++;
      else if (a.state === 'launching') launching++;
      else if (a.state === 'cleanup_retry') cleanupDebt++;
    }
    return {
      active,
      launching,
      cleanupDebt,
      leases: this.auths.size,
      inFlight: this.admission.total,
    };
  }
}
