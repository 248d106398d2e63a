import type { Principal } from '../auth/principal.js';
import { ExecError } from '../errors/exec-error.js';
import type { TurnLookup } from '../store/turn-lookup.js';

/** A turn that passed every check, in the form forwarded to a knowledge upstream. */
export interface CheckedTurn {
  readonly target: string;
  readonly targetType: 'channel' | 'dm' | 'thread' | 'task';
  readonly targetKey: string;
  readonly messageId: string;
}

const HINT_NO_TURN =
  "Knowledge search answers a person's request: it works only in a runtime started for that turn (agentteam run --turn-target T --turn-message M). Use memory_search or message_history_read instead.";

/**
 * Who may read a target. Channels are open to every agent of the server; a
 * direct conversation dm:<handle> is readable by the agent it is addressed to
 * (handle = agent id) and by an agent that has already written in it; a
 * thread is readable when its root's target is; a task target when the task
 * exists on the server.
 */
async function readable(
  lookup: TurnLookup,
  p: Principal,
  target: string,
  depth = 0,
): Promise<boolean> {
  const colon = target.indexOf(':');
  const type = target.slice(0, colon);
  const key = target.slice(colon + 1);
  switch (type) {
    case 'channel':
      return true;
    case 'dm':
      return key === p.agentId || (await lookup.wrote(p.serverId, target, `agent:${p.agentId}`));
    case 'thread': {
      const root = await lookup.message(p.serverId, key);
      return root !== null && depth < 4 && (await readable(lookup, p, root.target, depth + 1));
    }
    case 'task':
      return lookup.taskExists(p.serverId, key);
    default:
      return false;
  }
}

/**
 * Revalidates the turn an authorization is bound to, at every call: the
 * message exists, belongs to the bound target (or is that thread's root), was
 * written by a person, and the agent may read the target. Each failure has
 * its own error code so the runtime can tell them apart.
 */
export async function checkTurn(lookup: TurnLookup, p: Principal): Promise<CheckedTurn> {
  const turn = p.turn;
  if (!turn)
    throw new ExecError('turn_unbound', 'this runtime is not bound to a human-initiated turn', {
      hint: HINT_NO_TURN,
    });
  const msg = await lookup.message(p.serverId, turn.messageId);
  if (!msg) {
    throw new ExecError('not_found', `the turn message ${turn.messageId} does not exist`, {
      hint: 'The message that started this turn is gone; answer from what you know or ask the person again.',
    });
  }
  if (msg.target !== turn.target && turn.target !== `thread:${turn.messageId}`) {
    throw new ExecError(
      'turn_target_mismatch',
      `the turn message belongs to ${msg.target}, not to the bound target ${turn.target}`,
      {
        hint: 'The runtime was started with a message of another conversation; knowledge search is refused for this turn.',
      },
    );
  }
  if (!msg.author.startsWith('human:')) {
    throw new ExecError(
      'turn_message_not_human',
      `the turn message was written by ${msg.author}, not by a person`,
      {
        hint: 'Knowledge search is only for turns a person started; use memory_search or message_history_read instead.',
      },
    );
  }
  if (!(await readable(lookup, p, turn.target))) {
    throw new ExecError('target_unreadable', `you may not read ${turn.target}`, {
      hint: 'This agent cannot read the conversation of this turn, so its knowledge cannot be searched for it.',
    });
  }
  const colon = turn.target.indexOf(':');
  return {
    target: turn.target,
    targetType: turn.target.slice(0, colon) as CheckedTurn['targetType'],
    targetKey: turn.target.slice(colon + 1),
    messageId: turn.messageId,
  };
}
