import type { InputCheck } from '../../lib/input-validators.js';
import { ExecError } from '../errors.js';
import type { PinnedExtension } from './catalog.js';
import { inSpan, withTraceHeaders } from '../telemetry/tracing.js';

/** How long an upstream has to answer, and how much it may send back. */
export const UPSTREAM_TIMEOUT_MS = 10_000;
export const UPSTREAM_MAX_BYTES = 1024 * 1024;

export const DIGEST_HEADER = 'AgentTeam-Extension-Digest';
export const CATALOG_VERSION_HEADER = 'AgentTeam-Catalog-Version';

/**
 * Forwards one extension call: `POST {upstream}/runtime/ext` with
 * `{extension, action, input}` and the pinned digest and catalog version as
 * headers. Three failures are told apart: the provider refused its
 * authorization (401/403: provider_unauthorized), the provider's API failed
 * (any other non-2xx, an oversized or non-JSON answer, or output that does
 * not match the declared schema: upstream_error), and no answer at all
 * (refused, reset, DNS, timeout: upstream_unreachable).
 */
export async function forwardToUpstream(ext: PinnedExtension, action: string, input: unknown, signal: AbortSignal, checkOutput: InputCheck): Promise<unknown> {
  const url = `${ext.upstream}/runtime/ext`;
  const timeout = AbortSignal.timeout(UPSTREAM_TIMEOUT_MS);
  let res: Response;
  try {
    // A client span, its traceparent sent along so the provider's own spans join the agent's trace.
    res = await inSpan(`POST ${ext.name}`, { 'agentteam.extension': ext.name, 'agentteam.exec.action': action, 'http.request.method': 'POST' }, () => fetch(url, {
      method: 'POST',
      headers: withTraceHeaders({ 'content-type': 'application/json', [DIGEST_HEADER]: ext.digest, [CATALOG_VERSION_HEADER]: ext.catalogVersion }),
      body: JSON.stringify({ extension: ext.name, action, input }),
      signal: AbortSignal.any([signal, timeout]),
      redirect: 'error',
    }), 'client');
  } catch {
    throw unreachable(ext, timeout.aborted);
  }
  let text: string;
  try {
    text = await readBounded(res);
  } catch (err) {
    if (err instanceof ExecError) throw err;
    throw unreachable(ext, timeout.aborted);
  }
  if (res.status === 401 || res.status === 403) {
    throw new ExecError('provider_unauthorized', `${ext.name} refused the call: its provider authorization was rejected (HTTP ${res.status})`, {
      hint: `The ${ext.name} app's credentials need attention from a person; retrying will not help.`,
    });
  }
  if (res.status < 200 || res.status > 299) {
    throw new ExecError('upstream_error', `${ext.name} ${action} failed upstream (HTTP ${res.status})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ExecError('upstream_error', `${ext.name} ${action} answered with something that is not JSON`);
  }
  const checked = checkOutput(data);
  if (!checked.ok) throw new ExecError('upstream_error', `${ext.name} ${action} answered with data that does not match its output schema`, { details: checked.details.slice(0, 10) });
  return data;
}

function unreachable(ext: PinnedExtension, timedOut: boolean): ExecError {
  return new ExecError('upstream_unreachable', timedOut
    ? `${ext.name} did not answer within ${UPSTREAM_TIMEOUT_MS / 1000} s`
    : `${ext.name} could not be reached`);
}

async function readBounded(res: Response): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > UPSTREAM_MAX_BYTES) {
    await res.body?.cancel();
    throw new ExecError('upstream_error', `the upstream answer is larger than ${UPSTREAM_MAX_BYTES / 1024} KiB`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (res.body) {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > UPSTREAM_MAX_BYTES) throw new ExecError('upstream_error', `the upstream answer is larger than ${UPSTREAM_MAX_BYTES / 1024} KiB`);
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
