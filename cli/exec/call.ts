import { readFileSync } from 'node:fs';
import type { ErrorBody } from '../../catalog/envelope.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  REQUEST_ID_HEADER,
  bodySelector,
} from '../../catalog/selectors.js';
import type { InputCheck } from '../../lib/input-validators.js';
import { printData, printError, printMessage } from './output.js';
import { readStdin } from '../stdin.js';

type ParsedInput =
  | { readonly ok: true; readonly value: unknown; readonly text: string }
  | { readonly ok: false; readonly error: ErrorBody };

/**
 * The input argument: one inline JSON value, `-` for stdin, or nothing (taken
 * as `{}`; the validator then names any required field). The original text is
 * kept and sent as is, so the daemon's strict decoder sees what the caller wrote.
 */
async function readInput(arg: string | undefined): Promise<ParsedInput> {
  const text = arg === undefined ? '{}' : arg === '-' ? (await readStdin())!.toString('utf8') : arg;
  const source = arg === '-' ? 'stdin' : 'the input argument';
  if (text.trim() === '') {
    return {
      ok: false,
      error: { code: 'invalid_json', message: `${source} is empty; expected one JSON value` },
    };
  }
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch (err) {
    return {
      ok: false,
      error: {
        code: 'invalid_json',
        message: `${source} is not valid JSON: ${(err as Error).message}`,
      },
    };
  }
}

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
  if (!base)
    return {
      ok: false,
      message: `no daemon credentials: AGENTTEAM_EXEC_BASE_URL is not set; ${OUTSIDE_RUN}`,
    };
  if (!file)
    return {
      ok: false,
      message: `no daemon credentials: AGENTTEAM_EXEC_TOKEN_FILE is not set; ${OUTSIDE_RUN}`,
    };
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return { ok: false, message: 'no daemon credentials: AGENTTEAM_EXEC_BASE_URL is not a URL' };
  }
  if (url.protocol !== 'http:') {
    return {
      ok: false,
      message: `no daemon credentials: AGENTTEAM_EXEC_BASE_URL must be an http: URL, not ${url.protocol}`,
    };
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
  if (token === '')
    return { ok: false, message: `no daemon credentials: the token file ${file} is empty` };
  if (!TOKEN.test(token))
    return {
      ok: false,
      message: `no daemon credentials: the token file ${file} does not hold a token`,
    };
  return { ok: true, baseUrl: base.replace(/\/+$/, ''), token };
}

/**
 * One action call, in the order the contract fixes: parse and validate the
 * input locally, read the credential once, send exactly one request, print
 * the daemon's envelope.
 */
export async function call(
  domain: string,
  action: string,
  arg: string | undefined,
  check: InputCheck,
): Promise<number> {
  const input = await readInput(arg);
  if (!input.ok) return printError(input.error);
  const verdict = check(input.value);
  if (!verdict.ok) {
    const hint =
      arg === undefined
        ? `${domain} ${action} needs an input: pass one JSON value or - for stdin (see agentteam exec ${domain} ${action} --help).`
        : `See agentteam exec ${domain} ${action} --help or --input-schema.`;
    return printError({
      code: 'validation_failed',
      message: `input does not match the ${domain} ${action} schema`,
      hint,
      details: verdict.details,
      detailsOmitted: verdict.detailsOmitted,
    });
  }
  // The body's idempotency selector travels in both headers too; conflicting fields never leave the CLI.
  const selector = bodySelector(input.value);
  if (!selector.ok) {
    return printError({
      code: 'validation_failed',
      message: 'conflicting idempotency selectors',
      details: [selector.detail],
    });
  }
  const headers: Record<string, string> =
    selector.value === undefined
      ? {}
      : { [IDEMPOTENCY_KEY_HEADER]: selector.value, [REQUEST_ID_HEADER]: selector.value };
  const creds = readCredentials(process.env);
  if (!creds.ok) {
    printMessage(creds.message);
    return printError({ code: 'unavailable', message: creds.message });
  }
  const url = `${creds.baseUrl}/${domain}/${action}`;
  // node:net is loaded only here, so a local validation failure never pays for it.
  const { postJson, ANSWER_TIMEOUT_MS } = await import('./request.js');
  const res = await postJson(url, creds.token, input.text, ANSWER_TIMEOUT_MS, headers);
  if (!res.ok) {
    const why =
      res.error.code === 'ECONNREFUSED'
        ? 'connection refused'
        : (res.error.code ?? res.error.message);
    // Once the request may have reached the daemon, the caller cannot know whether it took effect.
    const maybe =
      res.error.code === 'ECONNRESET' || res.error.code === 'ETIMEDOUT'
        ? '; the action may or may not have been applied'
        : '';
    const message = `no daemon at ${new URL(url).origin} (${why})${maybe}`;
    printMessage(message);
    return printError({ code: 'unavailable', message });
  }
  // Only the closed envelope contract is printed (cli/exec/reproject.ts).
  const { reproject } = await import('./reproject.js');
  const printed = await reproject(domain, action, input.value, res.body);
  if (printed === undefined) {
    const message = `the daemon answered HTTP ${res.status} without a JSON envelope`;
    printMessage(message);
    return printError({ code: 'upstream_error', message });
  }
  printData(printed.text);
  return printed.status;
}
