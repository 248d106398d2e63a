import type { Clock } from '../../lib/clock.js';
import type { TurnError } from '../../catalog/turns.js';
import type { Profile } from '../profile/types.js';
import type { ClaimedTurn } from '../store/turn-rows.js';
import { TurnLaunchError } from './command.js';
import { prepareTurn, type LaunchDeps, type PreparedTurn } from './launch.js';
import { markLaunch } from './marks.js';
import { startTurnProcess, type TurnProcess } from './process.js';
import { type AppServerDeps, runAppServerTurn } from './app-server-turn.js';
import { openTurnSpan, type TurnSpan } from './trace.js';
import { watchSession } from './session-output.js';

interface RunnerDeps extends LaunchDeps {
  /** Codex turns: the tool host and gate their dynamic tools go through. */
  readonly appServer: AppServerDeps;
  readonly profile: () => Profile;
  /** This daemon's name on the store: its claims and heartbeats carry it. */
  readonly owner: string;
  readonly clock: Clock;
  /** Turns running at once in this daemon, over all agents. */
  readonly maxConcurrent: number;
  /** How often running turns are kept alive and other daemons' queues looked at. */
  readonly heartbeatMs: number;
  /** A running turn whose heartbeat is older than this belonged to a daemon that died. */
  readonly staleMs: number;
  readonly publish: (type: 'turn.started' | 'turn.finished', turn: ClaimedTurn) => void;
  readonly diag: (event: string, detail: Record<string, unknown>) => void;
}

interface Running {
  readonly turn: ClaimedTurn;
  proc: TurnProcess | null;
  /** Set when the runner stops it: the state it ends in. */
  stopAs: { state: 'cancelled' | 'failed' | 'interrupted'; error: TurnError } | null;
  /** Its end is being recorded: it leaves the running state by this runner's own hand. */
  ending: boolean;
  readonly span: TurnSpan;
}

/**
 * Runs queued turns: claims them from the store (one daemon per turn), starts
 * each agent's runtime under the watchdog, stops it at its deadline or when a
 * person cancels, and records how it ended. A pass runs whenever a message
 * is queued (`kick`) and every heartbeat (turns queued by another daemon
 * that does not run the agent, turns freed by a finished one).
 */
export class TurnRunner {
  private readonly running = new Map<string, Running>();
  /** Every turn's drive, until it has recorded its end. */
  private readonly drives = new Set<Promise<void>>();
  private passing = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly d: RunnerDeps) {}

  /** Marks interrupted what this daemon (or a dead one) left running, then starts the loop. */
  async start(): Promise<void> {
    await this.reap(true);
    this.schedule();
    this.kick();
  }

  private schedule(): void {
    if (this.closed) return;
    // Real time, not the injected clock: the heartbeat is plumbing, and a test clock that runs its
    // timers until none is left would never finish with one that re-arms itself.
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, this.d.heartbeatMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      // Only turns claimed before the heartbeat: one claimed meanwhile may be missing from its answer.
      const mine = [...this.running.values()];
      const held = await this.d.turns.heartbeat(this.d.owner);
      for (const r of mine) if (!held.has(r.turn.id) && !r.ending) this.lost(r);
      await this.reap(false);
    } catch (err) {
      this.d.diag('turn_heartbeat_failed', { message: (err as Error).message });
    }
    this.kick();
  }

  private async reap(own: boolean): Promise<void> {
    const stale = this.d.clock.now() - this.d.staleMs;
    // At start every turn this owner left running is over; later only the stale ones of others.
    const ended = await this.d.turns.interrupt(own ? this.d.owner : '', stale);
    for (const t of ended) {
      this.d.diag('turn_interrupted', { turnId: t.id, agentId: t.agentId });
      this.d.publish('turn.finished', t);
    }
  }

  /**
   * A turn another daemon marked interrupted while this one still ran it (its
   * heartbeats did not reach the store for the stale time): its runtime is
   * stopped, so no turn runs on after the team has recorded it over.
   */
  private lost(r: Running): void {
    this.d.diag('turn_lost', { turnId: r.turn.id, agentId: r.turn.agentId });
    void this.stop(r.turn.id, 'interrupted', 'daemon_stopped');
  }

  /** Claims and starts what can run now. */
  kick(): void {
    if (this.closed) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    this.passing = true;
    void this.pass()
      .catch((err: Error) => this.d.diag('turn_claim_failed', { message: err.message }))
      .finally(() => {
        this.passing = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async pass(): Promise<void> {
    const agents = new Map(this.d.profile().agents.map((a) => [a.id, a]));
    const waiting = await this.d.turns.waiting([...agents.keys()]);
    for (const { serverId, agentId } of waiting) {
      const agent = agents.get(agentId)!;
      while (!this.closed && this.running.size < this.d.maxConcurrent) {
        const turn = await this.d.turns.claim(
          serverId,
          agentId,
          this.d.owner,
          agent.launch.maxRunning,
        );
        if (!turn) break;
        this.run(turn);
      }
    }
  }

  private run(turn: ClaimedTurn): void {
    markLaunch(turn.id, 'claimed');
    const r: Running = { turn, proc: null, stopAs: null, ending: false, span: openTurnSpan(turn) };
    this.running.set(turn.id, r);
    const drive = this.drive(r)
      .catch((err: Error) => this.d.diag('turn_failed', { turnId: turn.id, message: err.message }))
      .finally(() => {
        r.span.end('failed', 'launch_failed');
        this.running.delete(turn.id);
        this.drives.delete(drive);
        this.kick();
      });
    this.drives.add(drive);
  }

  private async drive(r: Running): Promise<void> {
    const { turn } = r;
    const agent = this.d.profile().agents.find((a) => a.id === turn.agentId);
    const startedAt = this.d.clock.now();
    this.d.publish('turn.started', turn);
    if (!agent) return this.end(r, { state: 'failed', error: 'no_runtime' });
    let prepared: PreparedTurn;
    try {
      prepared = await prepareTurn(this.d, turn, agent, r.span.traceparent);
    } catch (err) {
      const code = err instanceof TurnLaunchError ? err.code : 'launch_failed';
      this.d.diag('turn_launch_failed', { turnId: turn.id, code, message: (err as Error).message });
      return this.end(r, { state: 'failed', error: code, errorDetail: (err as Error).message });
    }
    markLaunch(turn.id, 'prepared');
    const { auth } = prepared;
    const session = (id: string, resumed: boolean) =>
      this.d.turns
        .started(turn.id, id, resumed)
        .then(() =>
          this.d.turns.sessions.save(
            { serverId: turn.serverId, agentId: agent.id },
            turn.target,
            agent.runtime,
            id,
          ),
        );
    if (prepared.sessionId !== null) await session(prepared.sessionId, prepared.resumed);
    if (r.stopAs) {
      await this.d.auths.revoke(auth.id, 'exit');
      return this.end(r, { state: r.stopAs.state, error: r.stopAs.error });
    }
    const codex = prepared.appServer !== null;
    // OpenCode names its session in its output: the first id seen is recorded, the rest is dropped unread.
    const watch = prepared.sessionInOutput
      ? watchSession(
          (id) => session(id, id === prepared.previous),
          (err) => this.d.diag('turn_session_failed', { turnId: turn.id, message: err.message }),
        )
      : null;
    r.proc = startTurnProcess(
      prepared.argv,
      prepared.env,
      prepared.cwd,
      codex ? null : prepared.promptFile,
      watch?.reader,
    );
    markLaunch(turn.id, 'spawned');
    const deadline = this.d.clock.setTimeout(
      () => this.stop(turn.id, 'failed', 'timeout'),
      agent.launch.deadlineSeconds * 1000,
    );
    deadline.unref?.();
    // Codex names its thread (the session to resume next time) once it has started or resumed it.
    const status = codex
      ? await runAppServerTurn(this.d.appServer, turn.id, r.proc, prepared, session)
      : await r.proc.exited;
    this.d.clock.clearTimeout(deadline);
    const spoke = (await watch?.named()) ?? false;
    await this.d.auths.revoke(auth.id, 'exit');
    const replied = await this.d.lookup.wrote(
      turn.serverId,
      turn.target,
      `agent:${agent.id}`,
      startedAt,
    );
    // Read again: stop() may have set it while the runtime ran.
    const stopped = r.stopAs as Running['stopAs'];
    if (stopped) return this.end(r, { ...stopped, exitStatus: status, replied });
    if (status !== 0) {
      this.d.diag('turn_runtime_failed', {
        turnId: turn.id,
        exitStatus: status,
        stderr: r.proc.stderrTail(),
      });
      // OpenCode refuses a session it no longer has before it writes any event: the next turn starts anew.
      if (watch && prepared.previous !== null && !spoke)
        await this.d.turns.sessions.forget(
          { serverId: turn.serverId, agentId: agent.id },
          turn.target,
          prepared.previous,
        );
    }
    return this.end(r, {
      state: status === 0 ? 'succeeded' : 'failed',
      error: status === 0 ? null : status === 127 ? 'runtime_not_found' : 'runtime_failed',
      exitStatus: status,
      replied,
    });
  }

  private async end(r: Running, e: Parameters<RunnerDeps['turns']['finish']>[2]): Promise<void> {
    r.ending = true;
    r.span.end(e.state, e.error ?? null);
    const done = await this.d.turns.finish(r.turn.id, this.d.owner, e);
    if (done) this.d.publish('turn.finished', done);
  }

  /** Whether this daemon runs the turn now. */
  runs(id: string): boolean {
    return this.running.has(id);
  }

  /** Stops a turn this daemon runs; resolves once its runtime is gone. */
  async stop(id: string, state: 'cancelled' | 'failed' | 'interrupted', error: TurnError) {
    const r = this.running.get(id);
    if (!r) return false;
    r.stopAs ??= { state, error };
    await r.proc?.stop();
    return true;
  }

  /** Daemon shutdown: no new claims; every running turn is stopped and recorded interrupted. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const ids = [...this.running.keys()];
    await Promise.all(ids.map((id) => this.stop(id, 'interrupted', 'daemon_stopped')));
    // Each drive records its end before the store closes.
    await Promise.all([...this.drives]);
  }
}
