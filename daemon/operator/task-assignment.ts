import type { OutputOf } from '../../catalog/descriptor.js';
import type { taskGet } from '../../catalog/domains/task.js';
import { clipJson, jsonBytes, LIMITS } from '../../catalog/limits.js';
import type { MessageApi } from '../store/messages.js';
import type { QueuedTurn, TurnService } from '../turns/service.js';

type Task = OutputOf<typeof taskGet>['task'];

/** `agent:a1` and `a1` name the same assignee. */
const bare = (a: string | null | undefined): string | null =>
  a == null ? null : a.startsWith('agent:') ? a.slice(6) : a;

/**
 * Whether a person's write gave the task a new assignee: the assignee
 * differs from the one before, and this write made the change (a replayed
 * idempotency key answers with the first result, which changed nothing now).
 */
function newlyAssigned(before: Task | null, after: Task, fresh: boolean): boolean {
  if (bare(after.assignee) === null || !fresh) return false;
  if (before === null) return true;
  return after.revision > before.revision && bare(after.assignee) !== bare(before.assignee);
}

/**
 * What the assignee reads: who assigned what, the title and the description
 * (cut to what one message holds, with the read that has the rest), and
 * where to answer. Posted on the task's thread as the person.
 */
function assignmentText(task: Task, person: string): string {
  const head = `${person} assigned you the task ${task.id}${task.projectId ? ` (project ${task.projectId})` : ''}, status ${task.status}.`;
  const tail = `Read the whole task with the Exec action task get (id ${task.id}); write progress and questions to task:${task.id}, and update its status with task update.`;
  // Four line breaks join the parts: each is 2 bytes as JSON writes it.
  const body = clipJson(
    task.description === ''
      ? `Title: ${task.title}`
      : `Title: ${task.title}\n\n${task.description}`,
    {
      bytes: LIMITS.messageContent.bytes - jsonBytes(head) - jsonBytes(tail) - 8,
      chars: LIMITS.messageContent.chars - [...head].length - [...tail].length - 4,
    },
  );
  return clipJson(`${head}\n\n${body}\n\n${tail}`, LIMITS.messageContent);
}

/**
 * The one place a person's task writes end (daemon/operator/writes.ts calls
 * it after every successful task create or update made for a person): a new
 * assignee that is an agent of the profile gets the assignment on the task's
 * thread, written by the person, and a turn to answer it. Assigning the
 * same agent again starts nothing. Agents' writes through Exec never come
 * here, so agents cannot set each other to work.
 */
export class TaskAssignments {
  constructor(
    private readonly messages: MessageApi,
    private readonly turns: TurnService,
    /** Whether a handle is an agent of this daemon's profile. */
    private readonly isAgent: (handle: string) => boolean,
  ) {}

  async written(
    serverId: string,
    person: string,
    before: Task | null,
    after: Task,
    fresh: boolean,
  ): Promise<QueuedTurn[]> {
    if (!newlyAssigned(before, after, fresh)) return [];
    const agentId = bare(after.assignee)!;
    if (!this.isAgent(agentId)) return [];
    const message = await this.messages.send({
      serverId,
      target: `task:${after.id}`,
      author: person,
      content: assignmentText(after, person),
    });
    return this.turns.assigned(serverId, message, agentId);
  }
}
