import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ExecError } from '../errors/exec-error.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Operator routes require the operator token as a Bearer credential; compared in constant time. */
export function operatorAuth(token: string): MiddlewareHandler {
  const want = digest(token);
  return async (c, next) => {
    const m = /^Bearer +(\S+) *$/i.exec(c.req.header('authorization') ?? '');
    if (!m || !timingSafeEqual(digest(m[1]!), want))
      throw new ExecError('forbidden', 'operator credential required');
    await next();
  };
}
