/**
 * Where a daemon keeps its team store: the embedded SQLite file (default) or a
 * shared PostgreSQL database named by a `postgres://` URL. The URL's password
 * is a secret: everything a person or an agent can see (status, logs, errors)
 * uses `location` or `mask()`, never `connectionString`.
 */
export interface StoreUrl {
  /** What the driver connects with, password included. Never printed. */
  readonly connectionString: string;
  /** `host:port/database` — what status shows. */
  readonly location: string;
  /** The URL with its password (and any query parameters) replaced: `postgres://user:***@host:5432/db`. */
  readonly masked: string;
  /** The password, when the URL has one (the result gate masks it by value). */
  readonly password: string | null;
  /** Replaces the password (raw and percent-encoded) in any text. */
  mask(text: string): string;
}

export class StoreUrlError extends Error {
  override name = 'StoreUrlError';
}

/** Percent-decodes one part of the URL; a malformed escape (`%zz`, a lone `%`) is a StoreUrlError that never quotes the part. */
function decodePart(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new StoreUrlError(
      `the store URL's ${what} has a malformed percent-escape; write a literal % as %25`,
    );
  }
}

/** Parses `postgres://[user[:password]@]host[:port]/database[?params]`; errors never quote the password. */
export function parseStoreUrl(raw: string): StoreUrl {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new StoreUrlError(
      'the store URL is not a URL; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new StoreUrlError(
      `the store URL must start with postgres:// or postgresql:// (got ${u.protocol}//)`,
    );
  }
  const database = decodePart(u.pathname.replace(/^\//, ''), 'database name');
  if (!u.hostname)
    throw new StoreUrlError(
      'the store URL names no host; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
  if (!database || database.includes('/'))
    throw new StoreUrlError(
      'the store URL names no database; expected postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    );
  const rawPassword = u.password;
  const password = rawPassword ? decodePart(rawPassword, 'password') : null;
  const queryPassword = u.searchParams.get('password');
  const port = u.port || '5432';
  const location = `${u.hostname}:${port}/${database}`;
  const user = u.username ? `${u.username}${rawPassword || queryPassword ? ':***' : ''}@` : '';
  const masked = `${u.protocol}//${user}${u.hostname}:${port}/${encodeURIComponent(database)}${u.search ? '?…' : ''}`;
  const secrets = [rawPassword, password, queryPassword, raw]
    .filter((s): s is string => !!s)
    .sort((a, b) => b.length - a.length);
  return {
    connectionString: raw,
    location,
    masked,
    password: password ?? queryPassword,
    mask(text: string): string {
      let out = text;
      for (const s of secrets) out = out.split(s).join(s === raw ? masked : '***');
      return out;
    },
  };
}
