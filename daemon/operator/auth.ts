import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { DEVICE_ROUTES, SOCKET_REFUSED_ROUTES } from '../../catalog/operator/device-scope.js';
import { devicesExchange } from '../../catalog/operator/devices.js';
import { ExecError } from '../errors/exec-error.js';
import { looksLikeDeviceToken, type PairedDevices } from './devices.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Who is calling an operator row: the operator (token or console), the owner-only socket, or a paired device. */
type OperatorCaller =
  | { readonly kind: 'operator' }
  | { readonly kind: 'socket' }
  | { readonly kind: 'device'; readonly deviceId: string };

const callers = new WeakMap<Request, OperatorCaller>();

/** The env the unix-socket listener hands the app with each request (a TCP request cannot carry it). */
export const SOCKET_ENV = Symbol('agentteam.unix-socket');

/** Whether the request arrived on the owner-only unix socket. */
export function viaSocket(c: Context): boolean {
  return (c.env as Record<symbol, unknown> | undefined)?.[SOCKET_ENV] === true;
}

/**
 * Whether an error answer should carry the seed's top-level `code` beside
 * `error.code`: requests on the socket, requests that present a device
 * token, and the device rows themselves.
 */
export function wantsTopLevelCode(c: Context): boolean {
  if (viaSocket(c) || c.req.path.startsWith('/api/v1/devices')) return true;
  const bearer = /^Bearer +(\S+) *$/i.exec(c.req.header('authorization') ?? '')?.[1];
  return bearer !== undefined && looksLikeDeviceToken(bearer);
}

interface OperatorAuthOptions {
  readonly token: string;
  /** Paired devices; without them only the operator token (and the socket) is accepted. */
  readonly devices?: PairedDevices;
}

/**
 * Operator routes require the operator token as a Bearer credential (compared
 * in constant time), or arrive on the owner-only unix socket, whose file
 * permissions are the credential, or present a paired device's token. The
 * pairing exchange is the one row open without any: its code is checked by
 * its handler. Which rows a device or the socket may call is decided per row
 * by `admitRow`, from the catalog's lists.
 */
export function operatorAuth(o: OperatorAuthOptions): MiddlewareHandler {
  const want = digest(o.token);
  return async (c, next) => {
    if (c.req.method === devicesExchange.method && c.req.path === devicesExchange.path) {
      callers.set(c.req.raw, { kind: 'device', deviceId: '' });
      return next();
    }
    if (viaSocket(c)) {
      callers.set(c.req.raw, { kind: 'socket' });
      return next();
    }
    const bearer = /^Bearer +(\S+) *$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (bearer !== undefined && timingSafeEqual(digest(bearer), want)) {
      callers.set(c.req.raw, { kind: 'operator' });
      return next();
    }
    if (bearer !== undefined && o.devices && looksLikeDeviceToken(bearer)) {
      const device = await o.devices.verify(bearer);
      if (device) {
        callers.set(c.req.raw, { kind: 'device', deviceId: device.id });
        await next();
        c.res = o.devices.track(device.id, c.res);
        return;
      }
    }
    throw new ExecError('forbidden', 'operator credential required');
  };
}

/** Whether a paired device's token made this request (it then acts only as the profile's person). */
function deviceCall(c: Context): boolean {
  return callers.get(c.req.raw)?.kind === 'device';
}

/**
 * The person a request acts as: a paired device only ever as the profile's
 * person (a phone paired by Ada never writes as Bob), the operator token and
 * the socket as the person they name, else the profile's person.
 */
export function actingPerson(c: Context, named: string | undefined, person: string): string {
  if (deviceCall(c) && named !== undefined && named !== person)
    throw new ExecError(
      'forbidden',
      `a paired device acts only as the profile's person, ${person}`,
    );
  return named ?? person;
}

const DEVICE_ROWS = new Set<string>(DEVICE_ROUTES);
const SOCKET_REFUSED = new Set<string>(SOCKET_REFUSED_ROUTES);

/**
 * The per-row check the dispatcher makes before reading any input: a device
 * calls only the rows of DEVICE_ROUTES (the exchange aside, which is how it
 * gets its token), the socket every row but SOCKET_REFUSED_ROUTES. A request
 * the middleware did not see (none should reach a row) is refused.
 */
export function admitRow(row: string, c: Context): void {
  const caller = callers.get(c.req.raw);
  if (row === devicesExchange.name) return;
  if (!caller) throw new ExecError('forbidden', 'operator credential required');
  if (caller.kind === 'device' && (caller.deviceId === '' || !DEVICE_ROWS.has(row)))
    throw new ExecError('forbidden', 'a paired device may not call this route');
  if (caller.kind === 'socket' && SOCKET_REFUSED.has(row))
    throw new ExecError('forbidden', 'this route is not served on the unix socket');
}
