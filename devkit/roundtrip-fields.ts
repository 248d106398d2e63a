import type { TestContext } from 'node:test';
import { agentFields } from './roundtrip-agent-fields.js';
import { openFieldStore, type Field, type FieldStore } from './roundtrip-field-store.js';
import { messageFields } from './roundtrip-message-fields.js';
import { workflowFields } from './roundtrip-workflow-fields.js';
import type { startInProc } from './inproc.js';
import { inputProp, jsonText, ruleOf, sameText } from './roundtrip.js';
import { approvalDecide, approvalGet, approvalRequest } from '../catalog/domains/approval.js';
import { projectCreate, projectGet } from '../catalog/domains/project.js';
import { reviewAdd, reviewList } from '../catalog/domains/review.js';
import {
  scheduledMessageCreate,
  scheduledMessageGet,
} from '../catalog/domains/scheduled-message.js';
import { taskCreate, taskGet, taskUpdate } from '../catalog/domains/task.js';
import { workflowPlan } from '../catalog/domains/workflow.js';

/**
 * Every stored string field, in process: the daemon's JSON decoder, the
 * generated validators, the store and the MCP tool host, each field with a
 * way to send a string in its place and to count its rows. Fields kept in
 * profile.json go through the in-process daemon the test file opens.
 */

export async function inProcessFields(
  t: TestContext,
  open: typeof startInProc,
): Promise<{ fields: Field[]; close(): void }> {
  const store = await openFieldStore();
  const fields = [
    ...(await storeFields(store)),
    ...(await workflowFields(store)),
    ...(await agentFields(store, t, open)),
    ...messageFields(store),
  ];
  return { fields, close: () => store.db.close() };
}

/** Tasks, projects, reviews, approvals, scheduled messages and workflow plans, through the store's API. */
async function storeFields({ api, other, rows, column, validate }: FieldStore): Promise<Field[]> {
  const { task: base } = await api.call(taskCreate, { title: 'base' });
  const execField = (
    action: string,
    field: string,
    table: string,
    send: (input: any) => Promise<Record<string, unknown>>,
    wrap: (s: string) => Record<string, unknown>,
  ): Field => {
    const [d, a] = action.split(' ') as [string, string];
    return {
      name: `${action} ${field}`,
      path: `/${field}`,
      rule: ruleOf(inputProp(d, a, field)),
      count: () => rows(table),
      async run(s, escaped) {
        const input = validate(action, jsonText(wrap(s), escaped), `/${field}`);
        if (!input) return false;
        const record = await send(input);
        sameText(record[field], s, `${action} ${field}`);
        // And in the table itself, not only as the store hands it back.
        sameText(column(table, field, record.id as string), s, `${table}.${field}`);
        return true;
      },
    };
  };
  const getTask = async (id: string) =>
    (await api.call(taskGet, { id })).task as unknown as Record<string, unknown>;
  const fields: Field[] = [
    ...(['title', 'description', 'assignee'] as const).map((f) =>
      execField(
        'task create',
        f,
        'tasks',
        async (i) => getTask((await api.call(taskCreate, i)).task.id),
        (s) => ({ title: 't', [f]: s }),
      ),
    ),
    ...(['title', 'description', 'assignee'] as const).map((f) =>
      execField(
        'task update',
        f,
        'tasks',
        async (i) => {
          await api.call(taskUpdate, i);
          return getTask(base.id);
        },
        (s) => ({ id: base.id, [f]: s }),
      ),
    ),
    ...(['name', 'description'] as const).map((f) =>
      execField(
        'project create',
        f,
        'projects',
        async (i) =>
          (await api.call(projectGet, { id: (await api.call(projectCreate, i)).project.id }))
            .project as unknown as Record<string, unknown>,
        (s) => ({ name: 'p', [f]: s }),
      ),
    ),
    // Added, then read back as the newest review of the thread.
    execField(
      'review add',
      'body',
      'reviews',
      async (i) => {
        await api.call(reviewAdd, i);
        return (await api.call(reviewList, { taskId: base.id, limit: 1 }))
          .reviews[0] as unknown as Record<string, unknown>;
      },
      (s) => ({ taskId: base.id, verdict: 'comment', body: s }),
    ),
    ...(['title', 'detail'] as const).map((f) =>
      execField(
        'approval request',
        f,
        'approvals',
        async (i) =>
          (await api.call(approvalGet, { id: (await api.call(approvalRequest, i)).approval.id }))
            .approval as unknown as Record<string, unknown>,
        (s) => ({ title: 'a', [f]: s }),
      ),
    ),
    // A fresh approval per accepted note: validated first, so a refused note creates nothing.
    execField(
      'approval decide',
      'note',
      'approvals',
      async (i) => {
        const { approval } = await api.call(approvalRequest, { title: 'to decide' });
        await other.call(approvalDecide, { ...i, id: approval.id });
        return (await api.call(approvalGet, { id: approval.id })).approval as unknown as Record<
          string,
          unknown
        >;
      },
      (s) => ({ id: 'appr_000000', decision: 'approve', note: s }),
    ),
    execField(
      'scheduled-message create',
      'content',
      'scheduled_messages',
      async (i) =>
        (
          await api.call(scheduledMessageGet, {
            id: (await api.call(scheduledMessageCreate, i)).scheduledMessage.id,
          })
        ).scheduledMessage as unknown as Record<string, unknown>,
      (s) => ({ target: 'channel:later', at: '2030-01-01T00:00:00Z', content: s }),
    ),
    ...(['name', 'description'] as const).map((f) =>
      execField(
        'workflow plan',
        f,
        'wf_plans',
        async (i) =>
          (
            await api.call(workflowPlan, {
              op: 'show',
              id: (await api.call(workflowPlan, i)).plan!.id,
            } as never)
          ).plan as unknown as Record<string, unknown>,
        (s) => ({ op: 'create', name: 'p', steps: [{ name: 's' }], [f]: s }),
      ),
    ),
  ];

  return fields;
}
