import type { InputCheck } from '../../lib/input-validators.js';
import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import { OutboundError, postBounded, type OutboundAnswer } from '../http/outbound.js';
import { inSpan, withTraceHeaders } from '../telemetry/tracing.js';

/** An installed extension as an authorization pins it. */
export interface PinnedExtension {
  readonly name: string;
  readonly upstream: string;
  /** `sha256:<hex>` of the installed definition file. */
  readonly digest: string;
  readonly catalogVersion: string;
}

/** How long an upstream has to answer, and how much it may send back. */
export const UPSTREAM_TIMEOUT_MS = 10_000;
let deadlineMs = UPSTREAM_TIMEOUT_MS;
const UPSTREAM_MAX_BYTES = 1024 * 1024;

const DIGEST_HEADER = 'AgentTeam-Extension-Digest';
const CATALOG_VERSION_HEADER = 'AgentTeam-Catalog-Version';

/**
 * Forwards one extension call: `POST {upstream}/runtime/ext` with
 * `{extension, action, input}` and the pinned digest and catalog version as
 * headers. Three failures are told apart: the provider refused its
 * authorization (401/403: provider_unauthorized), the provider's API failed
 * (any other non-2xx, an oversized or non-JSON answer, or output that does
 * not match the declared schema: upstream_error), and no answer at all
 * (refused, reset, DNS, timeout: upstream_unreachable). The call has its
 * own deadline and ends at once when the runtime is revoked (outbound.ts).
 */
export async function forwardToUpstream(
  ext: PinnedExtension,
  action: string,
  input: unknown,
  signal: AbortSignal,
  checkOutput: InputCheck,
  clock?: Clock,
): Promise<unknown> {
  let res: OutboundAnswer;
  try {
    // A client span, its traceparent sent along so the provider's own spans join the agent's trace.
    res = await inSpan(
      `POST ${ext.name}`,
      {
        'agentteam.extension': ext.name,
        'agentteam.exec.action': action,
        'http.request.method': 'POST',
      },
      () =>
        postBounded({
          url: `${ext.upstream}/runtime/ext`,
          headers: withTraceHeaders({
            'content-type': 'application/json',
            [DIGEST_HEADER]: ext.digest,
            [CATALOG_VERSION_HEADER]: ext.catalogVersion,
          }),
          body: JSON.stringify({ extension: ext.name, action, input }),
          timeoutMs: deadlineMs,
          maxBytes: UPSTREAM_MAX_BYTES,
          signal,
          ...(clock ? { clock } : {}),
        }),
      'client',
    );
  } catch (err) {
    const reason = err instanceof OutboundError ? err.reason : 'unreachable';
    if (reason === 'too_large')
      throw new ExecError(
        'upstream_error',
        `the upstream answer is larger than ${UPSTREAM_MAX_BYTES / 1024} KiB`,
      );
    if (reason === 'cancelled')
      throw new ExecError('unavailable', 'the runtime authorization was revoked');
    throw unreachable(ext, reason === 'timeout');
  }
  if (res.status === 401 || res.status === 403) {
    throw new ExecError(
      'provider_unauthorized',
      `${ext.name} refused the call: its provider authorization was rejected (HTTP ${res.status})`,
      {
        hint: `The ${ext.name} app's credentials need attention from a person; retrying will not help.`,
      },
    );
  }
  if (res.status < 200 || res.status > 299) {
    throw new ExecError(
      'upstream_error',
      `${ext.name} ${action} failed upstream (HTTP ${res.status})`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(res.body);
  } catch {
    throw new ExecError(
      'upstream_error',
      `${ext.name} ${action} answered with something that is not JSON`,
    );
  }
  const checked = checkOutput(data);
  if (!checked.ok)
    throw new ExecError(
      'upstream_error',
      `${ext.name} ${action} answered with data that does not match its output schema`,
      { details: checked.details.slice(0, 10) },
    );
  return data;
}

function unreachable(ext: PinnedExtension, timedOut: boolean): ExecError {
  // The upstream is the installed definition's own URL (no credentials, query or fragment: catalog/extension.ts).
  return new ExecError(
    'upstream_unreachable',
    timedOut
      ? `${ext.name} did not answer within ${deadlineMs / 1000} s at ${ext.upstream}`
      : `${ext.name} could not be reached at ${ext.upstream}`,
    {
      hint: `Check that the ${ext.name} provider is running and listening at ${ext.upstream} (the "upstream" of its installed definition; see agentteam extension list). A changed address needs the definition reinstalled and a new runtime.`,
    },
  );
}

/**
 * A test timing (the daemon reads it from AGENTTEAM_TEST_EXTENSION_TIMEOUT_MS,
 * main.ts): a shorter deadline for every forwarded call of this process, so
 * the tests of a trickling upstream do not wait out the full 10 s.
 */
export function shortenUpstreamDeadline(ms: number): void {
  deadlineMs = Math.min(ms, UPSTREAM_TIMEOUT_MS);
}
