import type { MessageRecord } from '../../catalog/mcp-tools.js';
import { ExecError } from '../errors/exec-error.js';
import type { Profile } from '../profile/types.js';
import type { TurnLookup } from '../store/turn-lookup.js';
import type { TurnRecord } from '../store/turn-rows.js';
import type { TurnStore } from '../store/turns.js';
import { markLaunch } from './marks.js';
import { addressees, assignedAgent } from './routing.js';
import type { TurnRunner } from './runner.js';

/** What a posted message queued: one entry per agent it reached. */
export interface QueuedTurn {
  readonly turnId: string;
  readonly agentId: string;
  readonly state: 'queued' | 'dropped';
  /** The message joined a turn already queued for that agent on the same target. */
  readonly joined: boolean;
}

/**
 * The turn engine's front: a stored message is routed to the agents it
 * addresses and queued for each; a person cancels or retries a turn. The
 * runner does the rest.
 */
export class TurnService {
  constructor(
    private readonly turns: TurnStore,
    private readonly lookup: TurnLookup,
    private readonly profile: () => Profile,
    private readonly runner: TurnRunner,
  ) {}

  /** Queues a turn for every agent of this daemon's profile the message addresses. */
  async deliver(serverId: string, m: MessageRecord): Promise<QueuedTurn[]> {
    const profile = this.profile();
    return this.queue(
      serverId,
      m,
      profile,
      await addressees({ serverId, ...m }, profile, this.lookup),
    );
  }

  /**
   * A person assigned a task to an agent: `m`, the assignment the person
   * posted on the task's thread, queues a turn for that agent only (a
   * mention in the task's text reaches nobody). Agents' own assignments never
   * come here.
   */
  async assigned(serverId: string, m: MessageRecord, agentId: string): Promise<QueuedTurn[]> {
    if (!m.author.startsWith('human:')) return [];
    const profile = this.profile();
    const agent = assignedAgent(agentId, profile);
    return this.queue(serverId, m, profile, agent === null ? [] : [agent]);
  }

  /** The profile agents a routed message reaches, given. */
  private async queue(
    serverId: string,
    m: MessageRecord,
    profile: Profile,
    agents: readonly string[],
  ): Promise<QueuedTurn[]> {
    const out: QueuedTurn[] = [];
    for (const agentId of agents) {
      const agent = profile.agents.find((a) => a.id === agentId)!;
      const { turn, joined } = await this.turns.enqueue(
        serverId,
        agentId,
        m.target,
        m.id,
        agent.launch.queueLimit,
      );
      if (!joined) markLaunch(turn.id, 'queued');
      out.push({
        turnId: turn.id,
        agentId,
        state: turn.state === 'dropped' ? 'dropped' : 'queued',
        joined,
      });
    }
    if (out.length > 0) this.runner.kick();
    return out;
  }

  /** Cancels a queued turn, or stops a running one this daemon runs; `shutdown` when its app went away. */
  async cancel(
    serverId: string,
    id: string,
    reason: 'cancelled' | 'shutdown' = 'cancelled',
  ): Promise<TurnRecord> {
    const turn = await this.turns.find(serverId, id);
    if (turn.state === 'running') {
      if (!(await this.runner.stop(id, 'cancelled', reason)))
        throw new ExecError(
          'invalid_transition',
          `turn ${id} runs on another daemon; cancel it there`,
        );
    } else if (turn.state === 'queued') {
      // It may have been claimed meanwhile: then the runner that claimed it stops it.
      if (!(await this.turns.cancelQueued(serverId, id, reason)))
        return this.cancel(serverId, id, reason);
    } else {
      throw new ExecError('invalid_transition', `turn ${id} already ended (${turn.state})`);
    }
    return this.turns.find(serverId, id);
  }

  /** A new turn for the same messages as an ended one. */
  async retry(serverId: string, id: string): Promise<TurnRecord> {
    const turn = await this.turns.retry(serverId, id);
    this.runner.kick();
    return turn;
  }
}
