import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, errors } from 'jose';
import type { Clock } from '../../lib/clock.js';

/** Pinned JOSE parameters; verification accepts nothing else. */
export const TOKEN_ISSUER = 'agentteam-daemon';
export const TOKEN_AUDIENCE = 'agentteam-runtime';
export const TOKEN_TYP = 'agentteam-runtime+jwt';
const TOKEN_SCOPE = 'runtime';
/** Tokens longer than this are rejected before any parsing. */
export const MAX_TOKEN_BYTES = 4096;
export const CLOCK_TOLERANCE_S = 5;

interface TokenClaims {
  /** Authorization id. */
  readonly sub: string;
  /** Generation id. */
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
  readonly scope: string;
  readonly srv: string;
  readonly agt: string;
}

interface IssueRequest {
  readonly authorizationId: string;
  readonly generationId: string;
  readonly serverId: string;
  readonly agentId: string;
  readonly issuedAtMs: number;
  readonly expiresAtMs: number;
}

/** Why a token was refused; only ever reaches internal diagnostics. */
export type RejectReason =
  | 'missing'
  | 'malformed'
  | 'oversize'
  | 'signature'
  | 'expired'
  | 'claims'
  | 'scope'
  | 'revoked'
  | 'binding';

type VerifyResult = { ok: true; claims: TokenClaims } | { ok: false; reason: RejectReason };

/** Signs and verifies runtime tokens. Injectable so tests can make issuance fail. */
export interface TokenSigner {
  sign(req: IssueRequest): Promise<string>;
  verify(token: string): Promise<VerifyResult>;
}

/**
 * HS256 with a fresh 256-bit key per daemon start, imported once as a
 * KeyObject (importing raw bytes on every verify costs noticeably more).
 * `maxAgeS` is the longest TTL the daemon issues; each generation's own
 * expiry is enforced again by the authorization store.
 */
export function createJoseSigner(
  clock: Clock,
  maxAgeS: number,
  key: KeyObject = createSecretKey(randomBytes(32)),
): TokenSigner {
  return {
    async sign(req) {
      return new SignJWT({ scope: TOKEN_SCOPE, srv: req.serverId, agt: req.agentId })
        .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYP })
        .setIssuer(TOKEN_ISSUER)
        .setAudience(TOKEN_AUDIENCE)
        .setSubject(req.authorizationId)
        .setJti(req.generationId)
        .setIssuedAt(Math.floor(req.issuedAtMs / 1000))
        .setExpirationTime(Math.floor(req.expiresAtMs / 1000))
        .sign(key);
    },
    async verify(token) {
      if (token.length === 0) return { ok: false, reason: 'missing' };
      if (token.length > MAX_TOKEN_BYTES) return { ok: false, reason: 'oversize' };
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: TOKEN_ISSUER,
          audience: TOKEN_AUDIENCE,
          typ: TOKEN_TYP,
          requiredClaims: ['exp', 'iat', 'jti', 'sub'],
          maxTokenAge: maxAgeS,
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(clock.now()),
        });
        if (payload.scope !== TOKEN_SCOPE) return { ok: false, reason: 'scope' };
        if (typeof payload.srv !== 'string' || typeof payload.agt !== 'string')
          return { ok: false, reason: 'claims' };
        return { ok: true, claims: payload as unknown as TokenClaims };
      } catch (err) {
        return { ok: false, reason: classify(err) };
      }
    },
  };
}

function classify(err: unknown): RejectReason {
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'signature';
  if (err instanceof errors.JWTClaimValidationFailed) return 'claims';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'signature';
  return 'malformed';
}
