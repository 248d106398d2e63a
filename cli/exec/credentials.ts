import { readFileSync } from 'node:fs';

export type CredentialResult =
  | { readonly ok: true; readonly baseUrl: string; readonly token: string }
  | { readonly ok: false; readonly message: string };

const OUTSIDE_RUN = 'agentteam exec works inside a runtime started by `agentteam run`';

/** Token characters that are safe in an Authorization header (a JWT uses a subset). */
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * Reads the runtime credential: the base URL and the token file named by the
 * environment, the file exactly once. Fails closed on anything missing or
 * odd; there is deliberately no fallback to a token in the environment.
 */
export function readCredentials(env: NodeJS.ProcessEnv): CredentialResult {
  const base = env.AGENTTEAM_EXEC_BASE_URL;
  const file = env.AGENTTEAM_EXEC_TOKEN_FILE;
  if (!base) return { ok: false, message: `no daemon credentials: AGENTTEAM_EXEC_BASE_URL is not set; ${OUTSIDE_RUN}` };
  if (!file) return { ok: false, message: `no daemon credentials: AGENTTEAM_EXEC_TOKEN_FILE is not set; ${OUTSIDE_RUN}` };
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { ok: false, message: 'no daemon credentials: AGENTTEAM_EXEC_BASE_URL is not a URL' };
  }
  if (url.protocol !== 'http:') {
    return { ok: false, message: `no daemon credentials: AGENTTEAM_EXEC_BASE_URL must be an http: URL, not ${url.protocol}` };
  }
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`;
    return { ok: false, message: `no daemon credentials: the token file ${file} ${why}` };
  }
  const token = raw.trim();
  if (token === '') return { ok: false, message: `no daemon credentials: the token file ${file} is empty` };
  if (!TOKEN.test(token)) return { ok: false, message: `no daemon credentials: the token file ${file} does not hold a token` };
  return { ok: true, baseUrl: base.replace(/\/+$/, ''), token };
}
