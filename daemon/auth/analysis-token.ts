import { randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Clock } from '../../lib/clock.js';
import {
  CLOCK_TOLERANCE_S,
  MAX_TOKEN_BYTES,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  TOKEN_TYP,
} from './signer.js';

/** The scope of `agentteam token analyze` credentials; the runtime routes accept only `runtime`. */
const ANALYSIS_SCOPE = 'token-analysis';
/** An analysis credential lives for one diagnostic run. */
const ANALYSIS_TTL_S = 300;

export interface AnalysisTokens {
  issue(): Promise<{ token: string; expiresAt: string }>;
  verify(token: string): Promise<boolean>;
}

/**
 * Credentials of the read-only token-analysis route. They are signed with the
 * daemon's runtime key, issuer, audience and type, and differ only in their
 * scope: so a runtime route refuses one for its scope alone (the same 403 as
 * every other authentication failure), and this route refuses runtime tokens
 * and the operator token the same way.
 */
export function createAnalysisTokens(key: KeyObject, clock: Clock): AnalysisTokens {
  return {
    async issue() {
      const now = Math.floor(clock.now() / 1000);
      const token = await new SignJWT({ scope: ANALYSIS_SCOPE })
        .setProtectedHeader({ alg: 'HS256', typ: TOKEN_TYP })
        .setIssuer(TOKEN_ISSUER)
        .setAudience(TOKEN_AUDIENCE)
        .setSubject('token-analysis')
        .setJti(randomBytes(12).toString('base64url'))
        .setIssuedAt(now)
        .setExpirationTime(now + ANALYSIS_TTL_S)
        .sign(key);
      return { token, expiresAt: new Date((now + ANALYSIS_TTL_S) * 1000).toISOString() };
    },
    async verify(token) {
      if (token.length === 0 || token.length > MAX_TOKEN_BYTES) return false;
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: TOKEN_ISSUER,
          audience: TOKEN_AUDIENCE,
          typ: TOKEN_TYP,
          requiredClaims: ['exp', 'iat', 'jti', 'sub'],
          maxTokenAge: ANALYSIS_TTL_S,
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(clock.now()),
        });
        return payload.scope === ANALYSIS_SCOPE;
      } catch {
        return false;
      }
    },
  };
}
