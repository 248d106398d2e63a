import { randomBytes } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import { DEFAULT_SERVER } from '../../catalog/ids.js';
import type { MessageRecord } from '../../catalog/mcp-tools.js';
import { ExecError } from '../errors/exec-error.js';
import type { DaemonEvent } from '../events/event.js';
import type { Profile } from '../profile/types.js';
import type { SendMessage } from '../store/messages.js';
import type { ClaimedTurn } from '../store/turn-rows.js';
import type { TurnStore } from '../store/turns.js';
import type { StdioOrigin } from './launch.js';
import type { TurnService } from './service.js';

/**
 * The sessions of `serve --stdio` children: an app opens a session on one
 * agent and target, and each `turn.start` is a turn of the team store that
 * the one runner runs like any other (a run id is a turn id). The app's text
 * is stored as a message of the app's person (`human:app`) on the session's
 * target, and the turn is pinned to this daemon (only it holds the session).
 * A session lives in memory until its child's event stream closes; then its
 * queued and running turns end `cancelled` (`shutdown`). `run.started` and `run.finished`
 * go to the owning child only.
 */

interface Session {
  readonly id: string;
  readonly clientId: string;
  readonly serverId: string;
  readonly agentId: string;
  readonly target: string;
  readonly workdir: string | null;
  /** Its turns not yet ended. */
  readonly runs: Set<string>;
}

/** The author of an app's text: the person at the app that spawned the child. */
const STDIO_AUTHOR = 'human:app';
/** Sessions one child may hold at once. */
const SESSIONS_PER_CHILD = 64;

interface StdioDeps {
  readonly turns: TurnStore;
  readonly service: TurnService;
  readonly messages: { send(input: SendMessage): Promise<MessageRecord> };
  readonly profile: () => Profile;
  readonly owner: string;
  readonly publish: (event: DaemonEvent) => void;
  /** Throws unknown_client unless the child is connected and `key` is its hello's. */
  readonly checkClient: (clientId: string, key: string | undefined) => void;
  readonly kick: () => void;
}

/** `dir` when it is an existing directory within one of `allowed` (both resolved), else null. */
function within(dir: string, allowed: readonly string[]): string | null {
  if (!isAbsolute(dir)) return null;
  let real: string;
  try {
    real = realpathSync(dir);
    if (!statSync(real).isDirectory()) return null;
  } catch {
    return null;
  }
  for (const a of allowed) {
    let root: string;
    try {
      root = realpathSync(a);
    } catch {
      continue;
    }
    const rel = relative(root, real);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)))
      return real;
  }
  return null;
}

export class StdioSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly byRun = new Map<string, Session>();
  /** The app's message of a run being queued: the runner may claim the turn before enqueue answers. */
  private readonly byMessage = new Map<string, Session>();

  constructor(private readonly d: StdioDeps) {}

  create(
    clientId: string,
    key: string | undefined,
    b: { server_id?: string; agent: string; target?: string; workdir?: string },
  ) {
    this.d.checkClient(clientId, key);
    const agent = this.d.profile().agents.find((a) => a.id === b.agent);
    if (!agent) throw new ExecError('not_found', `no agent ${b.agent} in this daemon's profile`);
    let workdir: string | null = null;
    if (b.workdir !== undefined) {
      workdir = within(b.workdir, agent.allowedPaths);
      if (workdir === null)
        throw new ExecError(
          'invalid_request',
          `workdir ${b.workdir} is not an existing directory within agent ${agent.id}'s allowed paths (${agent.allowedPaths.join(', ') || 'none'})`,
        );
    }
    let held = 0;
    for (const s of this.sessions.values()) if (s.clientId === clientId) held++;
    if (held >= SESSIONS_PER_CHILD)
      throw new ExecError('busy', `this child already holds ${SESSIONS_PER_CHILD} sessions`);
    const s: Session = {
      id: `ses_${randomBytes(15).toString('base64url')}`,
      clientId,
      serverId: b.server_id ?? DEFAULT_SERVER,
      agentId: agent.id,
      target: b.target ?? `dm:${agent.id}`,
      workdir,
      runs: new Set(),
    };
    this.sessions.set(s.id, s);
    return { session_id: s.id, agent: s.agentId, target: s.target, workdir };
  }

  private own(clientId: string, key: string | undefined, sessionId: string): Session {
    this.d.checkClient(clientId, key);
    const s = this.sessions.get(sessionId);
    if (!s || s.clientId !== clientId)
      throw new ExecError('not_found', `no session ${sessionId} of this child`);
    return s;
  }

  async start(clientId: string, key: string | undefined, sessionId: string, text: string) {
    const s = this.own(clientId, key, sessionId);
    const agent = this.d.profile().agents.find((a) => a.id === s.agentId);
    if (!agent) throw new ExecError('not_found', `agent ${s.agentId} left the profile`);
    const m = await this.d.messages.send({
      serverId: s.serverId,
      target: s.target,
      author: STDIO_AUTHOR,
      content: text,
    });
    this.byMessage.set(m.id, s);
    const { turn } = await this.d.turns
      .enqueue(s.serverId, s.agentId, s.target, m.id, agent.launch.queueLimit, this.d.owner)
      .finally(() => this.byMessage.delete(m.id));
    if (turn.state === 'dropped')
      throw new ExecError('busy', `agent ${s.agentId}'s queue is full; start the turn later`);
    s.runs.add(turn.id);
    this.byRun.set(turn.id, s);
    this.d.kick();
    return { run_id: turn.id };
  }

  async cancel(clientId: string, key: string | undefined, sessionId: string, runId: string) {
    const s = this.own(clientId, key, sessionId);
    if (!s.runs.has(runId))
      throw new ExecError('not_found', `no run ${runId} in session ${sessionId} (or it ended)`);
    const turn = await this.d.service.cancel(s.serverId, runId);
    // A queued turn ends without the runner: its run.finished is sent here.
    if (turn.state !== 'running' && this.byRun.has(runId))
      this.turnEvent('turn.finished', { ...turn, serverId: s.serverId });
    return { run_id: runId, state: turn.state };
  }

  private sessionOf(t: ClaimedTurn): Session | undefined {
    const found = this.byRun.get(t.id);
    if (found) return found;
    const s = t.messageIds.length === 1 ? this.byMessage.get(t.messageIds[0]!) : undefined;
    if (!s) return undefined;
    s.runs.add(t.id);
    this.byRun.set(t.id, s);
    return s;
  }

  /** What a stdio run changes in its launch (undefined for other turns). */
  origin(t: ClaimedTurn): StdioOrigin | undefined {
    const s = this.sessionOf(t);
    return s ? { sessionId: s.id, workdir: s.workdir } : undefined;
  }

  /** The runner's turn events, as run notifications for the child that owns the run. */
  turnEvent(type: 'turn.started' | 'turn.finished', t: ClaimedTurn): void {
    const s = this.sessionOf(t);
    if (!s) return;
    const ended = type === 'turn.finished';
    if (ended) {
      s.runs.delete(t.id);
      this.byRun.delete(t.id);
    }
    const data = ended
      ? { session_id: s.id, run_id: t.id, status: t.state, ...(t.error ? { error: t.error } : {}) }
      : { session_id: s.id, run_id: t.id };
    this.d.publish({
      type: ended ? 'run.finished' : 'run.started',
      data,
      redacted: { run_id: t.id },
      audience: new Set([s.clientId]),
    });
  }

  /** The child's event stream closed: its sessions end, their runs are cancelled with reason `shutdown` (no runtime stays). */
  disconnected(clientId: string): void {
    for (const s of [...this.sessions.values()]) {
      if (s.clientId !== clientId) continue;
      this.sessions.delete(s.id);
      for (const runId of s.runs)
        void this.d.service
          .cancel(s.serverId, runId, 'shutdown')
          .then((t) => t.state !== 'running' && this.byRun.delete(runId))
          .catch(() => undefined);
    }
  }
}
