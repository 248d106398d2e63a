import type { Context } from 'hono';
import { systemClock, type Clock } from '../../lib/clock.js';
import { BODY_LIMIT_BYTES, readRequestBody } from './body.js';
import { decodeStrictJson } from './strict-json.js';

/** Operator requests have no runtime authorization to revoke: one signal that never aborts. */
const NEVER = new AbortController().signal;

/**
 * One JSON body for an operator route, under the same rules as Exec: at most
 * `limit` bytes (1 MiB unless a route needs more), an absolute read deadline,
 * strict decoding (duplicate keys, trailing data, bad UTF-8 and deep nesting
 * refused). Read straight from the Node request on @hono/node-server; building
 * a web Request stream per call cost three quarters of a small call's time.
 * Throws the usual ExecErrors (body_too_large, read_timeout, invalid_json).
 */
export async function readJsonBody(
  c: Context,
  clock: Clock = systemClock,
  limit = BODY_LIMIT_BYTES,
): Promise<unknown> {
  return decodeStrictJson(await readRequestBody(c, { clock, signal: NEVER, limit }));
}
