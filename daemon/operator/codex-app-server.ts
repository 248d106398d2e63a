import { readFileSync } from 'node:fs';
import type { Hono } from 'hono';
import type { AuthorizationStore } from '../auth/store.js';
import { readJsonBody } from '../http/json-body.js';
import { ExecError } from '../errors/exec-error.js';
import type { Diag } from '../lifecycle/diag.js';
import type { ToolHost } from '../tools/contracts.js';
import type { ResultGate } from '../results/gate.js';
import { APP_SERVER_OVERRIDES, appServerInstructionsFile } from '../drivers/codex-app-server.js';
import { overrideArgs } from '../drivers/codex.js';
import { runAppServerSession } from '../drivers/app-server/session.js';
import type { RuntimeEnv } from '../auth/principal.js';

interface AppServerRouteDeps {
  readonly auths: AuthorizationStore;
  readonly host: ToolHost;
  readonly gate: ResultGate;
  readonly diag: Diag;
}

interface StartBody {
  command: string[];
  env: Record<string, string>;
  cwd: string | null;
  prompt: string;
}

const MAX_ARGS = 256;
const MAX_PROMPT_BYTES = 256 * 1024;

function readStart(body: unknown): StartBody {
  const b = body as Partial<StartBody> | null;
  if (typeof b !== 'object' || b === null)
    throw new ExecError('invalid_request', 'the body must be an object');
  if (
    !Array.isArray(b.command) ||
    b.command.length === 0 ||
    b.command.length > MAX_ARGS ||
    !b.command.every((a) => typeof a === 'string')
  ) {
    throw new ExecError(
      'invalid_request',
      `command must be 1 to ${MAX_ARGS} strings: the codex executable and its arguments (app-server ...)`,
    );
  }
  if (!b.command.includes('app-server'))
    throw new ExecError('invalid_request', 'command must run `codex app-server`');
  if (
    typeof b.env !== 'object' ||
    b.env === null ||
    Array.isArray(b.env) ||
    !Object.values(b.env).every((v) => typeof v === 'string')
  ) {
    throw new ExecError('invalid_request', 'env must be an object of strings');
  }
  if (b.cwd !== undefined && b.cwd !== null && typeof b.cwd !== 'string')
    throw new ExecError('invalid_request', 'cwd must be a string');
  if (
    typeof b.prompt !== 'string' ||
    b.prompt.length === 0 ||
    Buffer.byteLength(b.prompt) > MAX_PROMPT_BYTES
  ) {
    throw new ExecError(
      'invalid_request',
      `prompt must be a non-empty string of at most ${MAX_PROMPT_BYTES} bytes`,
    );
  }
  return { command: b.command, env: b.env, cwd: b.cwd ?? null, prompt: b.prompt };
}

/**
 * POST /api/v1/runtimes/{id}/codex-app-server starts the one Codex
 * app-server run of a `codex-app-server` authorization: the daemon spawns
 * the command with the environment `run` gives it, drives it over JSON-RPC
 * and streams what happens as NDJSON lines (threads, agent messages, tool
 * decisions, the end). Revoking the authorization ends the run.
 */
export function registerCodexAppServerRoute(app: Hono<RuntimeEnv>, deps: AppServerRouteDeps): void {
  const started = new Set<string>();
  app.post('/api/v1/runtimes/:id/codex-app-server', async (c) => {
    const id = c.req.param('id');
    const auth = deps.auths.get(id);
    if (!auth?.live) throw new ExecError('not_found', 'no live runtime authorization with this id');
    if (auth.runtime !== 'codex-app-server')
      throw new ExecError(
        'invalid_request',
        `the authorization is for runtime ${auth.runtime}, not codex-app-server`,
      );
    const body = readStart(await readJsonBody(c));
    if (started.has(id))
      throw new ExecError(
        'invalid_transition',
        'this authorization already has its app-server run',
      );
    started.add(id);
    auth.signal.addEventListener('abort', () => started.delete(id), { once: true });
    const developerInstructions = readFileSync(appServerInstructionsFile(auth.dir), 'utf8');
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true;
        const emit = (e: object) => {
          if (open) controller.enqueue(encoder.encode(`${JSON.stringify(e)}\n`));
        };
        void runAppServerSession({
          auth,
          command: body.command,
          overrides: overrideArgs(APP_SERVER_OVERRIDES),
          env: body.env,
          cwd: body.cwd,
          prompt: body.prompt,
          developerInstructions,
          host: deps.host,
          gate: deps.gate,
          diag: deps.diag,
          emit,
        })
          .catch((err: Error) => emit({ event: 'done', status: 'failed', error: err.message }))
          .finally(() => {
            open = false;
            try {
              controller.close();
            } catch {
              // the reader went away
            }
          });
      },
      cancel() {
        // `run` stopped listening: its lease goes, and with it the app server.
        void deps.auths.revoke(id, 'run_disconnected');
      },
    });
    return new Response(stream, {
      status: 200,
      headers: { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' },
    });
  });
}
