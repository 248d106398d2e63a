import type { Clock } from '../../lib/clock.js';
import type { AuthorizationStore } from '../auth/store.js';
import type { LaunchHook } from '../drivers/launch-hook.js';
import type { DaemonEvent } from '../events/event.js';
import type { Profile } from '../profile/types.js';
import type { TurnLookup } from '../store/turn-lookup.js';
import type { TurnStore } from '../store/turns.js';
import type { ResultGate } from '../results/gate.js';
import type { ToolHost } from '../tools/contracts.js';
import type { NativeApprovals } from '../approvals/native.js';
import { TurnRunner } from './runner.js';
import { TurnService } from './service.js';
import { StdioSessions } from './stdio-sessions.js';
import type { MessageRecord } from '../../catalog/mcp-tools.js';
import type { SendMessage } from '../store/messages.js';

interface TurnsOptions {
  readonly turns: TurnStore;
  readonly lookup: TurnLookup;
  readonly profile: () => Profile;
  readonly auths: AuthorizationStore;
  readonly launchHook?: LaunchHook | undefined;
  readonly urls: (serverId: string, agentId: string) => { execBaseUrl: string; mcpUrl: string };
  readonly home: string;
  /** This daemon's stable name on the store (instance.id). */
  readonly owner: string;
  readonly clock: Clock;
  readonly publish: (event: DaemonEvent) => void;
  readonly diag: (event: string, detail: Record<string, unknown>) => void;
  /** A shared PostgreSQL store: other daemons queue turns this one may run. */
  readonly shared: boolean;
  /** How long a running turn may go without a heartbeat (tests shorten it; default STALE_MS). */
  readonly staleMs?: number | undefined;
  /** The tool host and result gate a Codex turn's dynamic tools go through, and the inbox its approvals go to. */
  readonly tools: {
    readonly host: ToolHost;
    readonly gate: ResultGate;
    readonly approvals?: NativeApprovals;
  };
  /** Where a stdio run's text is stored (as the app's person's message). */
  readonly messages: { send(input: SendMessage): Promise<MessageRecord> };
  /** The event streams' clients: who a stdio child is, and when its stream closes. */
  readonly clients: {
    check(clientId: string, key: string | undefined): void;
    onDisconnect(fn: (clientId: string) => void): void;
  };
}

/** Turns running at once in one daemon, over all agents. */
const MAX_CONCURRENT_TURNS = 8;
/** Heartbeat of running turns; on a shared store also how often other daemons' queues are looked at. */
const HEARTBEAT_MS = 5_000;
const SHARED_POLL_MS = 1_000;
/** A running turn whose daemon has not beaten for this long is interrupted by another. */
const STALE_MS = 30_000;

/** The turn engine of one daemon: the runner and the front the operator routes use. */
export function openTurns(o: TurnsOptions): {
  runner: TurnRunner;
  service: TurnService;
  stdio: StdioSessions;
} {
  const staleMs = o.staleMs ?? STALE_MS;
  let stdio!: StdioSessions;
  const runner = new TurnRunner({
    ...o,
    origin: (turn) => stdio.origin(turn),
    env: process.env,
    maxConcurrent: MAX_CONCURRENT_TURNS,
    // Several beats within the stale time, so one late beat never costs a live turn.
    heartbeatMs: Math.min(o.shared ? SHARED_POLL_MS : HEARTBEAT_MS, Math.floor(staleMs / 4)),
    staleMs,
    appServer: { ...o.tools, diag: o.diag },
    publish: (type, t) => {
      // The app's run notifications first: its child learns the end no later than the console.
      stdio.turnEvent(type, t);
      // A request the turn's runtime still waits on is cancelled with it, whoever ended the turn.
      if (type === 'turn.finished')
        void o.tools.approvals
          ?.endTurn(t.id)
          .catch((err: Error) =>
            o.diag('approvals_end_turn_failed', { turnId: t.id, message: err.message }),
          );
      o.publish({
        type,
        // Ids and states only: the messages' text stays in the store.
        data: {
          turnId: t.id,
          serverId: t.serverId,
          agentId: t.agentId,
          target: t.target,
          messageIds: t.messageIds,
          state: t.state,
          error: t.error,
          exitStatus: t.exitStatus,
          replied: t.replied,
        },
        redacted: null,
        audience: null,
      });
    },
  });
  const service = new TurnService(o.turns, o.lookup, o.profile, runner);
  stdio = new StdioSessions({
    turns: o.turns,
    service,
    messages: o.messages,
    profile: o.profile,
    owner: o.owner,
    publish: o.publish,
    checkClient: (id, key) => o.clients.check(id, key),
    kick: () => runner.kick(),
  });
  o.clients.onDisconnect((id) => stdio.disconnected(id));
  return { runner, service, stdio };
}
