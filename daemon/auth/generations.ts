import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import type { Authorization, Generation } from './authorization.js';
import { CLOCK_TOLERANCE_S } from './signer.js';
import * as L from './limits.js';

/**
 * The live token generations of every authorization: what authentication
 * ends at, the verified-token cache in front of it, and the bounds on how
 * many generations one runtime may hold at once.
 */
export class GenerationBook {
  private readonly byId = new Map<string, Generation>();
  /**
   * Generations whose token passed a full jose verification, by the token's
   * last characters (its signature's): hashing a whole ~650-character token
   * string that the request just made cost about 2 µs a call; the whole
   * token is still compared before a generation is returned.
   */
  private readonly bySignature = new Map<string, Generation>();
  /**
   * Bumps when a generation is added: the result gate must mask a new token
   * at once, so it rebuilds its token index (O(live tokens)). A dropped token
   * moves nothing: masking a dead value is harmless, and it leaves the index
   * with the next addition. Bumping on drops too made hundreds of runtimes
   * ending together cost one rebuild each, quadratic, all on the event loop.
   */
  version = 0;

  constructor(
    private readonly clock: Clock,
    private readonly diag?: (event: string, detail: Record<string, unknown>) => void,
  ) {}

  /** Registered before publication, so a reader that sees the new file can use it at once. */
  add(auth: Authorization, gen: Generation): void {
    this.byId.set(gen.id, gen);
    auth.generations.push(gen);
    this.version++;
  }

  get(id: string): Generation | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The generation of a token that passed full verification before. */
  verified(token: string): Generation | undefined {
    const gen = this.bySignature.get(signatureKey(token));
    return gen !== undefined && gen.token === token ? gen : undefined;
  }

  rememberVerified(token: string, gen: Generation): void {
    this.bySignature.set(signatureKey(token), gen);
  }

  /** Every live generation's token. */
  *tokens(): Iterable<string> {
    for (const g of this.byId.values()) yield g.token;
  }

  /** Drops generations past their own expiry plus the clock tolerance (the instant authenticate refuses them). */
  pruneExpired(auth: Authorization): void {
    const limit = this.clock.now() - CLOCK_TOLERANCE_S * 1000;
    for (const g of [...auth.generations]) if (g.expiresAtMs <= limit) this.drop(auth, g);
  }

  checkRoom(auth: Authorization, forced: boolean): void {
    const gens = auth.generations;
    const oldest = (list: Generation[]) =>
      Math.max(0, list[0]!.expiresAtMs + CLOCK_TOLERANCE_S * 1000 - this.clock.now());
    if (forced) {
      const live = gens.filter((g) => g.forced);
      if (live.length >= L.MAX_LIVE_FORCED_GENERATIONS) {
        const waitS = Math.ceil(oldest(live) / 1000);
        throw new ExecError(
          'busy',
          `${live.length} force-rotated tokens of this runtime are still valid; the next forced rotation is possible in ${waitS} s`,
        );
      }
    }
    // Scheduled issues cannot reach this (see limits.ts); kept so a bug refuses rather than revokes.
    if (gens.length >= L.liveGenerationBound(auth.ttlMs, CLOCK_TOLERANCE_S * 1000)) {
      this.diag?.('generation_bound_reached', { authorizationId: auth.id, live: gens.length });
      throw new ExecError(
        'busy',
        `the runtime holds the most valid tokens allowed; retry in ${Math.ceil(oldest(gens) / 1000)} s`,
      );
    }
  }

  drop(auth: Authorization, gen: Generation): void {
    this.byId.delete(gen.id);
    const key = signatureKey(gen.token);
    if (this.bySignature.get(key) === gen) this.bySignature.delete(key);
    const i = auth.generations.indexOf(gen);
    if (i >= 0) auth.generations.splice(i, 1);
  }
}

/** The last 32 characters of a token: part of its signature, 192 bits no caller can choose for a token the daemon signed. */
function signatureKey(token: string): string {
  return token.slice(-32);
}
