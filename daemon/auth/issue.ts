import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Authorization, Generation } from './authorization.js';
import type { GenerationBook } from './generations.js';
import type { TokenSigner } from './signer.js';
import type { TokenWriter } from './token-file.js';

/** What issuing a generation uses of the store's dependencies. */
interface IssueDeps {
  readonly clock: Clock;
  readonly signer: TokenSigner;
  readonly writer: TokenWriter;
  readonly onPublished?: (auth: Authorization) => void;
  readonly diag?: (event: string, detail: Record<string, unknown>) => void;
}

/**
 * Signs and publishes a new generation; on failure the current file and
 * generation stay as they were. Room is never made by dropping a live
 * generation: a forced issue past its cap is refused instead.
 */
export async function issueGeneration(
  deps: IssueDeps,
  gens: GenerationBook,
  auth: Authorization,
  forced: boolean,
): Promise<Generation> {
  gens.pruneExpired(auth);
  gens.checkRoom(auth, forced);
  const now = deps.clock.now();
  const issuedAtMs = Math.floor(now / 1000) * 1000;
  const expiresAtMs = Math.floor((now + auth.ttlMs) / 1000) * 1000;
  const genId = randomBytes(12).toString('base64url');
  const token = await deps.signer.sign({
    authorizationId: auth.id,
    generationId: genId,
    serverId: auth.principal.serverId,
    agentId: auth.principal.agentId,
    issuedAtMs,
    expiresAtMs,
  });
  if (auth.state !== 'launching' && auth.state !== 'active') throw new Error('revoked');
  const gen: Generation = {
    id: genId,
    authorizationId: auth.id,
    issuedAtMs,
    expiresAtMs,
    forced,
    token,
  };
  // Registered before publication so a reader that sees the new file can use it at once.
  gens.add(auth, gen);
  try {
    await deps.writer.publish(auth.dir, token);
  } catch (err) {
    gens.drop(auth, gen);
    throw err;
  }
  if (auth.state !== 'launching' && auth.state !== 'active') throw new Error('revoked');
  if (auth.state === 'active') notifyPublished(deps, auth);
  return gen;
}

function notifyPublished(deps: IssueDeps, auth: Authorization): void {
  try {
    deps.onPublished?.(auth);
  } catch (err) {
    deps.diag?.('publish_hook_failed', {
      authorizationId: auth.id,
      error: String((err as Error)?.message ?? err),
    });
  }
}
