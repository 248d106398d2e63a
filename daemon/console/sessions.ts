import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/**
 * Console sign-in without the operator token in the browser: the CLI (holding
 * the token) asks for a one-time code, the browser trades the code for a
 * session. A code lives 60 s and is consumed by its first use, whatever the
 * outcome; a session has its own expiry and a CSRF token of its own. Only
 * digests are kept, so a memory dump shows no usable secret. Both maps are
 * bounded: the oldest entry is dropped to make room.
 */
export const CODE_TTL_MS = 60_000;
export const SESSION_TTL_MS = 12 * 3_600_000;
const MAX_CODES = 32;
const MAX_SESSIONS = 32;

export interface ConsoleSession {
  readonly csrf: string;
  readonly expiresAtMs: number;
}

const digest = (s: string) => createHash('sha256').update(s).digest('base64url');
const secret = () => randomBytes(32).toString('base64url');

export class ConsoleSessions {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, ConsoleSession>();

  constructor(private readonly clock: Clock) {}

  issueCode(): { code: string; expiresAtMs: number } {
    this.sweep();
    const code = secret();
    const expiresAtMs = this.clock.now() + CODE_TTL_MS;
    bounded(this.codes, MAX_CODES).set(digest(code), expiresAtMs);
    return { code, expiresAtMs };
  }

  /** Consumes `code`; a session id and its CSRF token when it was issued, unused and unexpired. */
  exchange(code: string): { sessionId: string; session: ConsoleSession } | null {
    const key = digest(code);
    const expires = this.codes.get(key);
    this.codes.delete(key);
    if (expires === undefined || expires <= this.clock.now()) return null;
    const sessionId = secret();
    const session = { csrf: secret(), expiresAtMs: this.clock.now() + SESSION_TTL_MS };
    bounded(this.sessions, MAX_SESSIONS).set(digest(sessionId), session);
    return { sessionId, session };
  }

  lookup(sessionId: string | undefined): ConsoleSession | null {
    if (!sessionId) return null;
    const key = digest(sessionId);
    const s = this.sessions.get(key);
    if (!s) return null;
    if (s.expiresAtMs <= this.clock.now()) {
      this.sessions.delete(key);
      return null;
    }
    return s;
  }

  end(sessionId: string | undefined): void {
    if (sessionId) this.sessions.delete(digest(sessionId));
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [k, exp] of this.codes) if (exp <= now) this.codes.delete(k);
    for (const [k, s] of this.sessions) if (s.expiresAtMs <= now) this.sessions.delete(k);
  }
}

function bounded<V>(m: Map<string, V>, max: number): Map<string, V> {
  while (m.size >= max) m.delete(m.keys().next().value!);
  return m;
}
