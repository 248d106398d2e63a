import type { LeaseEnd, LeaseLine, LeaseRequest } from '../../catalog/operator/lease.js';
import type { runtimesLease } from '../../catalog/operator/runtimes.js';
import type { OperatorHandler, OperatorHandlers } from '../http/operator-dispatch.js';
import { ExecError } from '../errors/exec-error.js';
import type { AuthorizationStore } from '../auth/store.js';
import { isPidAlive } from '../lifecycle/owner.js';
import type { LaunchAdditions, LaunchHook } from '../drivers/launch-hook.js';

/** What the lease routes use of the running daemon. */
export interface LeaseContext {
  readonly store: AuthorizationStore;
  /** The Exec and MCP URLs a runtime of (server, agent) is given. */
  readonly urls: (serverId: string, agentId: string) => { execBaseUrl: string; mcpUrl: string };
  readonly launchHook?: LaunchHook;
}

const PID_POLL_MS = 500;

/** The reason store.revoke gave (`shutdown`, `replaced`, `exit`, ...), carried by the abort. */
function revokeReason(signal: AbortSignal): string {
  const r = signal.reason as ExecError | undefined;
  const v = r instanceof ExecError ? r.extra.metadata?.reason : undefined;
  return typeof v === 'string' ? v : 'revoked';
}

/** What the lease schema cannot say: the turn's two fields go together; ids are the daemon's to mint. */
function checkLease(b: LeaseRequest): LeaseRequest {
  for (const k of ['sessionId', 'runId'])
    if (Object.hasOwn(b, k))
      throw new ExecError(
        'invalid_request',
        `${k} is not a lease field: the daemon mints a lease's session and run ids itself (the first line returns them); sessionName is a label`,
      );
  const target = b.turnTarget ?? null;
  const messageId = b.turnMessageId ?? null;
  if ((target === null) !== (messageId === null))
    throw new ExecError('invalid_request', 'turnTarget and turnMessageId go together');
  return b;
}

/**
 * POST /api/v1/runtimes opens a runtime lease. The response is a stream whose
 * first line describes the new authorization and which stays open for the
 * runtime's lifetime: when the `run` process's connection closes (exit,
 * crash, kill -9) or its pid disappears, the authorization is revoked.
 */
export function runtimeLeaseHandlers(
  ctx: LeaseContext,
): Pick<OperatorHandlers, 'runtimes.lease' | 'runtimes.revoke' | 'runtimes.rotate'> {
  const { store } = ctx;
  const lease: OperatorHandler<typeof runtimesLease> = async ({ body }, c) => {
    const req = checkLease(body);
    const auth = await store.create({
      serverId: req.serverId,
      agentId: req.agentId,
      mintIds: true,
      sessionName: req.sessionName ?? null,
      workdir: req.workdir ?? null,
      primaryThreadId: req.primaryThreadId ?? null,
      runtime: req.runtime ?? 'generic',
      turn:
        req.turnTarget && req.turnMessageId
          ? { target: req.turnTarget, messageId: req.turnMessageId }
          : null,
      ...(req.ttlSeconds !== undefined ? { ttlMs: req.ttlSeconds * 1000 } : {}),
      ...(req.resumeDir !== undefined
        ? { resume: { dir: req.resumeDir, secret: req.resumeSecret } }
        : {}),
    });
    const revoke = (reason: string) => void store.revoke(auth.id, reason);
    const { execBaseUrl, mcpUrl } = ctx.urls(req.serverId, req.agentId);
    let additions: LaunchAdditions = { env: {}, args: [] };
    try {
      if (ctx.launchHook) {
        additions = ctx.launchHook(
          auth,
          req.runtime ?? 'generic',
          mcpUrl,
          req.env ?? {},
          req.runtimeVersion ?? null,
        );
      }
    } catch (err) {
      await store.revoke(auth.id, 'launch_abort');
      throw err instanceof ExecError
        ? err
        : new ExecError('internal', 'the runtime driver could not prepare the launch');
    }
    const line: LeaseLine = {
      authorizationId: auth.id,
      sessionId: auth.principal.sessionId!,
      runId: auth.principal.runId!,
      privateDir: auth.dir,
      tokenFile: auth.tokenFile,
      resumeSecret: auth.resumeSecret,
      execBaseUrl,
      mcpUrl,
      ttlSeconds: auth.ttlMs / 1000,
      env: additions.env,
      args: additions.args,
      ...(additions.argsFor ? { argsFor: additions.argsFor } : {}),
      ...(additions.shimDir ? { shimDir: additions.shimDir } : {}),
      ...(additions.tokenEnv ? { tokenEnv: additions.tokenEnv } : {}),
      ...(additions.binDir ? { binDir: additions.binDir } : {}),
    };
    const first = `${JSON.stringify({ ok: true, data: line })}\n`;
    const conn = c.req.raw.signal;
    if (conn.aborted) revoke('run_disconnected');
    else conn.addEventListener('abort', () => revoke('run_disconnected'), { once: true });
    const pid = req.pid;
    const poll =
      pid && pid > 0
        ? setInterval(() => {
            if (!isPidAlive(pid)) revoke('run_died');
          }, PID_POLL_MS)
        : null;
    poll?.unref();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(first));
        auth.signal.addEventListener(
          'abort',
          () => {
            if (poll) clearInterval(poll);
            // The run process is gone with its connection: nobody reads a last line, and writing it
            // through the masking stream is most of what hundreds of runtimes ending together cost.
            if (conn.aborted) return;
            try {
              // The last line says why, so `run` can tell a daemon shutdown (wait for the next daemon) from the rest.
              controller.enqueue(
                new TextEncoder().encode(
                  `${JSON.stringify({ event: 'revoked', reason: revokeReason(auth.signal) } satisfies LeaseEnd)}\n`,
                ),
              );
              controller.close();
            } catch {
              // already closed
            }
          },
          { once: true },
        );
      },
      cancel() {
        revoke('run_disconnected');
      },
    });
    return new Response(stream, {
      status: 200,
      headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' },
    });
  };
  return {
    'runtimes.lease': lease,
    'runtimes.revoke': async ({ params: { id } }) => {
      if (!store.get(id)) throw new ExecError('not_found', 'no such runtime authorization');
      await store.revoke(id, 'exit');
      return { revoked: true, state: store.get(id)?.state ?? 'gone' };
    },
    'runtimes.rotate': async ({ params: { id } }) => {
      const gen = await store.rotateNow(id);
      return { generationId: gen.id, expiresAt: new Date(gen.expiresAtMs).toISOString() };
    },
  };
}
