import { readFileSync } from 'node:fs';
import type { AuthorizationStore } from '../auth/store.js';
import type { BodyOf } from '../../catalog/operator/route.js';
import type { runtimesCodexAppServer } from '../../catalog/operator/runtimes.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import { ExecError } from '../errors/exec-error.js';
import type { Diag } from '../lifecycle/diag.js';
import type { ToolHost } from '../tools/contracts.js';
import type { ResultGate } from '../results/gate.js';
import { APP_SERVER_OVERRIDES, appServerInstructionsFile } from '../drivers/codex-app-server.js';
import { overrideArgs } from '../drivers/codex.js';
import { runAppServerSession } from '../drivers/app-server/session.js';

interface AppServerRouteDeps {
  readonly auths: AuthorizationStore;
  readonly host: ToolHost;
  readonly gate: ResultGate;
  readonly diag: Diag;
}

const MAX_PROMPT_BYTES = 256 * 1024;

/** What the row's schema cannot say: the command runs the app server, the prompt's bytes. */
function readStart(b: BodyOf<typeof runtimesCodexAppServer>) {
  if (!b.command.includes('app-server'))
    throw new ExecError('invalid_request', 'command must run `codex app-server`');
  if (Buffer.byteLength(b.prompt) > MAX_PROMPT_BYTES) {
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
export function codexAppServerHandlers(
  deps: AppServerRouteDeps,
): Pick<OperatorHandlers, 'runtimes.codexAppServer'> {
  const started = new Set<string>();
  const start: OperatorHandlers['runtimes.codexAppServer'] = ({ params: { id }, body: raw }) => {
    const auth = deps.auths.get(id);
    if (!auth?.live) throw new ExecError('not_found', 'no live runtime authorization with this id');
    if (auth.runtime !== 'codex-app-server')
      throw new ExecError(
        'invalid_request',
        `the authorization is for runtime ${auth.runtime}, not codex-app-server`,
      );
    const body = readStart(raw);
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
  };
  return { 'runtimes.codexAppServer': start };
}
