import { timingSafeEqual } from 'node:crypto';

/** Whether a presented secret (a client key, a CSRF token) equals the one on record, in time that does not depend on where they differ. */
export function sameSecret(known: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const x = Buffer.from(known);
  const y = Buffer.from(presented);
  return x.length === y.length && timingSafeEqual(x, y);
}
