import { randomInt } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';

/** How long a pairing code may be exchanged. */
export const PAIRING_TTL_MS = 5 * 60_000;
/** Codes waiting at once; a new one pushes out the oldest. */
const PAIRING_PENDING_MAX = 4;
/** Failed exchanges tolerated while codes wait; one more voids every waiting code. */
export const PAIRING_FAILURES_MAX = 10;
/** Crockford's base32: no I, L, O or U, so a person can read the code aloud and type it. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_CHARS = 10;

/**
 * One-time pairing codes, held in the daemon's memory only (a restart voids
 * them). A code is 50 random bits, lives PAIRING_TTL_MS, and is spent by its
 * first exchange. Guessing is bounded: after PAIRING_FAILURES_MAX wrong
 * exchanges every waiting code is voided, so a guesser gets that many tries
 * per code the operator asked for, a chance of about 10 in 2^50.
 */
export class PairingCodes {
  private readonly codes = new Map<string, number>();
  private failures = 0;

  constructor(private readonly clock: Clock) {}

  /** A new code as printed (`XXXXX-XXXXX`) and when it stops working. */
  issue(): { code: string; expiresAt: number } {
    this.sweep();
    while (this.codes.size >= PAIRING_PENDING_MAX)
      this.codes.delete(this.codes.keys().next().value!);
    let raw = '';
    for (let i = 0; i < CODE_CHARS; i++) raw += ALPHABET[randomInt(ALPHABET.length)];
    const expiresAt = this.clock.now() + PAIRING_TTL_MS;
    this.codes.set(raw, expiresAt);
    return { code: `${raw.slice(0, 5)}-${raw.slice(5)}`, expiresAt };
  }

  /** Spends a code: true once for a waiting code; every false counts towards the bound. */
  spend(presented: string): boolean {
    this.sweep();
    const key = normalize(presented);
    if (this.codes.delete(key)) return true;
    this.failures++;
    if (this.failures >= PAIRING_FAILURES_MAX) {
      this.codes.clear();
      this.failures = 0;
    }
    return false;
  }

  /** Codes waiting now (for tests and status). */
  pending(): number {
    this.sweep();
    return this.codes.size;
  }

  private sweep(): void {
    const now = this.clock.now();
    for (const [code, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(code);
    // The failures count guesses against the codes that wait; with none waiting it starts again.
    if (this.codes.size === 0) this.failures = 0;
  }
}

/** Upper case, the dash dropped, and the letters Crockford reads as digits mapped. */
function normalize(code: string): string {
  return code.toUpperCase().replace(/-/g, '').replace(/[IL]/g, '1').replace(/O/g, '0');
}
