import { strict as assert } from 'node:assert';
import { rawRequest, type RawResponse } from './http.js';
import type { Daemon } from './daemon.js';

/** A signed-in console over plain HTTP: requests go to the daemon's address under the console's own Host and Origin. */
export interface ConsoleClient {
  /** `http://<name>.localhost:PORT`, from the sign-in link. */
  readonly origin: string;
  /** The console's Host header and the session cookie (`name=value`), for hand-made requests. */
  readonly host: string;
  readonly cookie: string;
  get(path: string): Promise<RawResponse>;
  /** A form post from a console page: the console's Origin and the session's CSRF token added. */
  post(path: string, form: Record<string, string>, csrf: string): Promise<RawResponse>;
}

/** Signs in as a person does: `agentteam console` for a link, then the login form's post. */
export async function signIn(d: Daemon): Promise<ConsoleClient> {
  const r = await d.cli(['console']);
  assert.equal(r.code, 0, r.stderr);
  const link = new URL(r.stdout.trim());
  const host = link.host,
    origin = link.origin;
  const form = (f: Record<string, string>) => new URLSearchParams(f).toString();
  const login = await rawRequest(
    `${d.url}/console/login`,
    'POST',
    { host, origin, 'content-type': 'application/x-www-form-urlencoded' },
    form({ code: link.searchParams.get('code')! }),
  );
  assert.equal(login.status, 303, login.body);
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  return {
    origin,
    host,
    cookie,
    get: (path) => rawRequest(`${d.url}${path}`, 'GET', { host, cookie }),
    post: (path, f, csrf) =>
      rawRequest(
        `${d.url}${path}`,
        'POST',
        { host, origin, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        form({ ...f, csrf }),
      ),
  };
}
