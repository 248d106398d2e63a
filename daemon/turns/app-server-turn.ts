import type { Diag } from '../lifecycle/diag.js';
import type { ResultGate } from '../results/gate.js';
import type { ToolHost } from '../tools/contracts.js';
import { converse } from '../drivers/app-server/conversation.js';
import type { NativeAsker } from '../drivers/app-server/approvals.js';
import { askOrigin } from '../approvals/lookup.js';
import type { PreparedTurn } from './launch.js';
import type { TurnProcess } from './process.js';

/** What a Codex turn uses of the daemon: the tool host and result gate its dynamic tools go through. */
export interface AppServerDeps {
  readonly host: ToolHost;
  readonly gate: ResultGate;
  readonly diag: Diag;
  /** Where Codex's command and file-change approvals go (the daemon's inbox); declined without it. */
  readonly approvals?: NativeAsker | undefined;
}

/** How long `codex app-server` has to exit by itself once its stdin is closed. */
const CLOSE_GRACE_MS = 1_000;

/**
 * One turn of a Codex agent: the `codex app-server` already running under
 * the watchdog (`proc`, in its JSON-RPC mode) gets the conversation of
 * `agentteam run --runtime codex-app-server` with the turn's thread,
 * resumed when the agent has one on this target. `onThread` is told the
 * primary thread as soon as Codex names it. When the conversation is over
 * the app server's stdin is closed and its process group stopped. Resolves
 * with 0 when the primary turn completed, else 1 (the reason goes to the log).
 */
export async function runAppServerTurn(
  d: AppServerDeps,
  turnId: string,
  proc: TurnProcess,
  prepared: PreparedTurn,
  onThread: (threadId: string, resumed: boolean) => Promise<void>,
): Promise<number> {
  const turn = prepared.appServer!;
  const io = proc.rpc!;
  const outcome = await converse(
    {
      auth: prepared.auth,
      cwd: prepared.cwd,
      prompt: turn.prompt,
      developerInstructions: turn.developerInstructions,
      resume: prepared.previous,
      host: d.host,
      gate: d.gate,
      diag: d.diag,
      emit: () => undefined,
      onPrimary: onThread,
      ...(d.approvals
        ? {
            approvals: {
              asker: d.approvals,
              origin: askOrigin(prepared.auth.principal, prepared.auth.runtime),
            },
          }
        : {}),
    },
    {
      input: io.input,
      output: io.output,
      exited: proc.exited.then((status) => ({
        status: 'failed',
        error: `the app server exited (status ${status}): ${proc.stderrTail().trim().split('\n').slice(-3).join(' / ')}`,
      })),
    },
  );
  if (outcome.status !== 'completed')
    d.diag('turn_app_server_failed', { turnId, status: outcome.status, error: outcome.error });
  io.input.end();
  const closed = await Promise.race([
    proc.exited.then(() => true),
    new Promise<false>((r) => setTimeout(() => r(false), CLOSE_GRACE_MS).unref()),
  ]);
  if (!closed) await proc.stop();
  return outcome.status === 'completed' ? 0 : 1;
}
