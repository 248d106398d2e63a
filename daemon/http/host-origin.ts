import type { Context, MiddlewareHandler } from 'hono';
import { ListenError } from '../lifecycle/listen.js';

/**
 * Who may address the daemon by name. A browser page can make requests to
 * 127.0.0.1 only under a name the attacker controls (DNS rebinding: `Host:
 * evil.example:PORT`) or from its own origin (`Origin: https://evil.example`);
 * both are refused here, for every route family, before any credential is
 * looked at. The bearer token stays the real gate; this removes the browser
 * as a way in even if a token leaked to a page.
 */
interface HostOriginOptions {
  /** The address the daemon listens on (`127.0.0.1`, `::1`, `localhost`, or a remote host with --allow-remote). */
  readonly listenHost: string;
  /** The bound port; read per request because it is known only after listen. */
  readonly port: () => number;
  /** Extra names (`--allow-host`, only with --allow-remote): DNS names or IP literals. */
  readonly allowHosts?: readonly string[];
  /**
   * The console's own host name (`<random>.localhost`) and the paths it serves:
   * accepted as Host and Origin on those paths only, so a page under that name
   * reaches nothing else of the daemon.
   */
  readonly console?: { readonly name: string; readonly owns: (path: string) => boolean };
}

/** The guard as hono middleware: `reject` builds the refusal for the route family of `c` (envelope or JSON-RPC frame); status 403. */
interface HostOriginMiddlewareOptions extends HostOriginOptions {
  readonly reject: (c: Context, message: string) => Response;
}

const LOOPBACK_V4 = /^127(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const DNS_NAME =
  /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const UNSPECIFIED = new Set(['0.0.0.0', '[::]']);
const ACCEPTED_CACHE_MAX = 64;

/** A host as it appears in a Host header or URL: lower case, IPv6 in brackets. */
function hostForm(name: string): string {
  const n = name.toLowerCase();
  return n.includes(':') && !n.startsWith('[') ? `[${n}]` : n;
}

/** Checks `--allow-host` values when the options are built, so a typo fails the start, not a request. */
export function checkAllowHosts(names: readonly string[], allowRemote: boolean): string[] {
  if (names.length > 0 && !allowRemote) throw new ListenError('--allow-host needs --allow-remote');
  return names.map((raw) => {
    const n = hostForm(raw);
    const bare = n.startsWith('[') ? n.slice(1, -1) : n;
    if (!(DNS_NAME.test(n) || (n.startsWith('[') && /^[0-9a-f:.]+$/.test(bare)))) {
      throw new ListenError(
        `--allow-host must be a host name or IP address without a port, got "${raw}"`,
      );
    }
    return n;
  });
}

/** Splits `name:port` (IPv6 bracketed); null when the port is missing or malformed. */
function splitHostPort(value: string): { name: string; port: number } | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(value);
  return m ? { name: m[1]!.toLowerCase(), port: Number(m[2]) } : null;
}

/** localhost, 127.0.0.0/8 or [::1]: names that reach only this machine. */
function isLoopbackName(n: string): boolean {
  return n === 'localhost' || n === '[::1]' || LOOPBACK_V4.test(n);
}

/**
 * The guard's decision for one request: null to go on, else the refusal's
 * message. One function for the hono middleware (hostOriginGuard) and the
 * Exec lane.
 */
export function hostOriginCheck(
  opts: HostOriginOptions,
): (host: string | undefined, origin: string | undefined, path: string) => string | null {
  const names = new Set(['localhost', '[::1]', ...(opts.allowHosts ?? []).map(hostForm)]);
  const listen = hostForm(opts.listenHost);
  if (!UNSPECIFIED.has(listen)) names.add(listen);
  const allowedName = (n: string) => names.has(n) || LOOPBACK_V4.test(n);
  const consoleName = opts.console ? hostForm(opts.console.name) : null;
  // Never cached with the others: the console's name is an address of this daemon only on console paths.
  const consoleAt = (hp: { name: string; port: number } | null, path: string) =>
    hp !== null && hp.name === consoleName && hp.port === opts.port() && opts.console!.owns(path);

  // Accepted Host values seen so far: nearly every request repeats one, so the parse is skipped.
  // Bounded, and refusals are never cached, so no request can grow it past the cap.
  const accepted = new Set<string>();
  function hostOk(value: string | undefined): boolean {
    if (value === undefined) return false;
    if (accepted.has(value)) return true;
    const hp = splitHostPort(value);
    // A loopback name without a port: some HTTP clients leave the port out, and no page elsewhere can send it.
    const ok =
      hp === null
        ? isLoopbackName(value.toLowerCase())
        : hp.port === opts.port() && allowedName(hp.name);
    if (ok && accepted.size < ACCEPTED_CACHE_MAX) accepted.add(value);
    return ok;
  }

  function originOk(value: string, path: string): boolean {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      return false; // includes the opaque origin "null"
    }
    // The daemon serves plain HTTP, so its own origin is http://<name>:<port>.
    if (u.protocol !== 'http:' || u.pathname !== '/' || u.username || u.password) return false;
    const hp = { name: u.hostname.toLowerCase(), port: Number(u.port || 80) };
    return hp.port === opts.port() && (allowedName(hp.name) || consoleAt(hp, path));
  }

  return (host, origin, path) => {
    if (!hostOk(host) && !consoleAt(splitHostPort(host ?? ''), path))
      return 'Forbidden: the Host header is not an address of this daemon';
    if (origin !== undefined && !originOk(origin, path))
      return 'Forbidden: the Origin is not this daemon';
    return null;
  };
}

export function hostOriginGuard(opts: HostOriginMiddlewareOptions): MiddlewareHandler {
  const check = hostOriginCheck(opts);
  // Not async: an accepted request hands on `next()`'s promise itself, one async frame fewer per call.
  return (c, next) => {
    const refused = check(c.req.header('host'), c.req.header('origin'), c.req.path);
    return refused === null ? next() : Promise.resolve(opts.reject(c, refused));
  };
}
