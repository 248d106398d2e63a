import type { Context, Hono } from 'hono';
import { readJsonBody } from '../http/json-body.js';
import type { Authorization } from '../auth/authorization.js';
import { ExecError } from '../errors/exec-error.js';
import { isRuntimeKind, type RuntimeKind } from '../../catalog/runtimes.js';
import { MESSAGE_ID_PATTERN, TARGET_PATTERN } from '../../catalog/mcp-tools.js';
import type { AuthorizationStore } from '../auth/store.js';
import { ENTITY_ID_RULE, isEntityId } from '../../catalog/ids.js';
import { isPidAlive } from '../lifecycle/owner.js';
import type { RuntimeEnv } from '../auth/principal.js';

/** What a runtime driver adds to the launch (written into the private dir by the daemon). */
interface LaunchAdditions {
  readonly env: Record<string, string>;
  readonly args: string[];
  /** The executable `args` belong to; `run` uses `shimDir` on PATH when it wraps another command. */
  readonly argsFor?: string;
  readonly shimDir?: string;
  /** A variable `run` sets to the current token when it starts the runtime directly. */
  readonly tokenEnv?: string;
  /** The private directory with the `agentteam` launcher; `run` puts it first on PATH. */
  readonly binDir?: string;
}

export type LaunchHook = (
  auth: Authorization,
  runtime: RuntimeKind,
  mcpUrl: string,
  env: Record<string, string>,
  runtimeVersion: string | null,
) => LaunchAdditions;

/** What the lease routes use of the running daemon. */
export interface LeaseContext {
  readonly store: AuthorizationStore;
  /** The Exec and MCP URLs a runtime of (server, agent) is given. */
  readonly urls: (serverId: string, agentId: string) => { execBaseUrl: string; mcpUrl: string };
  readonly launchHook?: LaunchHook;
}

interface LeaseRequest {
  serverId: string;
  agentId: string;
  sessionId?: string | null;
  runId?: string | null;
  workdir?: string | null;
  primaryThreadId?: string | null;
  ttlSeconds?: number;
  runtime?: RuntimeKind;
  turnTarget?: string | null;
  turnMessageId?: string | null;
  pid?: number;
  env?: Record<string, string>;
  /** The runtime's `--version` output as `run` read it (Codex), for choosing what its config may use. */
  runtimeVersion?: string | null;
  /** Re-lease after a daemon restart: the private directory name the runtime's token file path has. */
  resumeDir?: string;
  /** The first lease's `resumeSecret`, which proves the claim on `resumeDir`. */
  resumeSecret?: string;
}

const PID_POLL_MS = 500;

/** The reason store.revoke gave (`shutdown`, `replaced`, `exit`, ...), carried by the abort. */
function revokeReason(signal: AbortSignal): string {
  const r = signal.reason as ExecError | undefined;
  const v = r instanceof ExecError ? r.extra.metadata?.reason : undefined;
  return typeof v === 'string' ? v : 'revoked';
}

async function readLease(c: Context): Promise<LeaseRequest> {
  const body = await readJsonBody(c);
  const b = body as LeaseRequest;
  if (
    typeof b !== 'object' ||
    b === null ||
    typeof b.serverId !== 'string' ||
    typeof b.agentId !== 'string'
  ) {
    throw new ExecError('invalid_request', 'serverId and agentId are required strings');
  }
  if (b.ttlSeconds !== undefined && (!Number.isInteger(b.ttlSeconds) || b.ttlSeconds < 1)) {
    throw new ExecError('invalid_request', 'ttlSeconds must be a positive integer');
  }
  if (
    b.runtimeVersion !== undefined &&
    b.runtimeVersion !== null &&
    (typeof b.runtimeVersion !== 'string' || b.runtimeVersion.length > 200)
  ) {
    throw new ExecError(
      'invalid_request',
      'runtimeVersion must be a string of at most 200 characters',
    );
  }
  if (b.resumeDir !== undefined && typeof b.resumeDir !== 'string')
    throw new ExecError('invalid_request', 'resumeDir must be a string');
  if (b.resumeSecret !== undefined && typeof b.resumeSecret !== 'string')
    throw new ExecError('invalid_request', 'resumeSecret must be a string');
  if (b.runtime !== undefined && !isRuntimeKind(b.runtime))
    throw new ExecError('invalid_request', `unknown runtime "${b.runtime}"`);
  // Reported back by workspace get, so bounded by the id grammar like serverId and agentId.
  for (const k of ['sessionId', 'runId'] as const) {
    const v = b[k];
    if (v !== undefined && v !== null && !isEntityId(v))
      throw new ExecError('invalid_request', `${k} must be ${ENTITY_ID_RULE}`);
  }
  const target = b.turnTarget ?? null;
  const messageId = b.turnMessageId ?? null;
  if ((target === null) !== (messageId === null))
    throw new ExecError('invalid_request', 'turnTarget and turnMessageId go together');
  if (target !== null && (typeof target !== 'string' || !new RegExp(TARGET_PATTERN).test(target))) {
    throw new ExecError(
      'invalid_request',
      'turnTarget must be an exact target (channel:<name>, dm:<handle>, thread:<messageId>, task:<taskId>)',
    );
  }
  if (
    messageId !== null &&
    (typeof messageId !== 'string' || !new RegExp(MESSAGE_ID_PATTERN).test(messageId))
  ) {
    throw new ExecError('invalid_request', 'turnMessageId must be a message id (msg_...)');
  }
  return b;
}

/**
 * POST /api/v1/runtimes opens a runtime lease. The response is a stream whose
 * first line describes the new authorization and which stays open for the
 * runtime's lifetime: when the `run` process's connection closes (exit,
 * crash, kill -9) or its pid disappears, the authorization is revoked.
 */
export function registerRuntimeLeaseRoutes(app: Hono<RuntimeEnv>, ctx: LeaseContext): void {
  const { store } = ctx;
  app.post('/api/v1/runtimes', async (c) => {
    const req = await readLease(c);
    const auth = await store.create({
      serverId: req.serverId,
      agentId: req.agentId,
      sessionId: req.sessionId ?? null,
      runId: req.runId ?? null,
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
    const first = `${JSON.stringify({
      ok: true,
      data: {
        authorizationId: auth.id,
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
      },
    })}\n`;
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
                  `${JSON.stringify({ event: 'revoked', reason: revokeReason(auth.signal) })}\n`,
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
  });

  app.delete('/api/v1/runtimes/:id', async (c) => {
    const id = c.req.param('id');
    if (!store.get(id)) throw new ExecError('not_found', 'no such runtime authorization');
    await store.revoke(id, 'exit');
    return c.json({ ok: true, data: { revoked: true, state: store.get(id)?.state ?? 'gone' } });
  });

  app.post('/api/v1/runtimes/:id/rotate', async (c) => {
    const gen = await store.rotateNow(c.req.param('id'));
    return c.json({
      ok: true,
      data: { generationId: gen.id, expiresAt: new Date(gen.expiresAtMs).toISOString() },
    });
  });
}
