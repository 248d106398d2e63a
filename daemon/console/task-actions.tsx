import type { Context, Hono } from 'hono';
import type { ConsoleOperator } from './operator-client.js';
import type { ConsoleEnv } from './page-bodies.js';
import { taskHref } from './pages/tasks.js';

/** Runs one action and goes to the URL it returns, or shows the daemon's refusal (actions.tsx). */
type Act = (c: Context, back: string, run: () => Promise<unknown>) => Promise<Response>;

const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : undefined;

/**
 * The Tasks pages' actions (session, Origin and CSRF checked by the guard
 * first): each is one operator write row, made for the console's person
 * (the daemon's default, as `agentteam task create` without `--as`), so the
 * same validation, turns and audit row as the CLI's. The form's revision
 * goes along as expectedRevision: a task someone changed since the page was
 * drawn is refused with revision_conflict rather than overwritten.
 */
export function registerTaskActions(app: Hono<ConsoleEnv>, op: ConsoleOperator, act: Act): void {
  const list = (serverId: string) => `/console/tasks?${new URLSearchParams({ server: serverId })}`;
  app.post('/console/tasks/:serverId/create', async (c) => {
    const serverId = c.req.param('serverId');
    const form = await c.req.parseBody();
    const [description, projectId, assignee] = [
      text(form.description),
      text(form.projectId),
      text(form.assignee),
    ];
    return act(c, list(serverId), async () => {
      const { task } = await op.call('writes.task.create', {
        params: { serverId },
        query: {},
        body: {
          title: typeof form.title === 'string' ? form.title : '',
          ...(description ? { description } : {}),
          ...(projectId ? { projectId } : {}),
          ...(assignee ? { assignee: assignee.trim() } : {}),
        },
      });
      return taskHref(serverId, task.id);
    });
  });
  app.post('/console/projects/:serverId/create', async (c) => {
    const serverId = c.req.param('serverId');
    const form = await c.req.parseBody();
    const description = text(form.description);
    return act(c, list(serverId), () =>
      op.call('writes.project.create', {
        params: { serverId },
        query: {},
        body: {
          name: typeof form.name === 'string' ? form.name : '',
          ...(description ? { description } : {}),
        },
      }),
    );
  });
  const update = (verb: 'assign' | 'state', field: 'assignee' | 'status') =>
    app.post(`/console/tasks/:serverId/:id/${verb}`, async (c) => {
      const { serverId, id } = c.req.param();
      const form = await c.req.parseBody();
      const revision = Number(form.revision);
      const value = typeof form[field] === 'string' ? form[field].trim() : '';
      return act(c, taskHref(serverId, id), () =>
        op.call('writes.task.update', {
          params: { serverId },
          query: {},
          // Anything else is sent as is, so the person sees the daemon's own refusal.
          body: {
            id,
            [field]: value,
            ...(Number.isInteger(revision) && revision > 0 ? { expectedRevision: revision } : {}),
          } as { id: string; assignee: string },
        }),
      );
    });
  update('assign', 'assignee');
  update('state', 'status');
}
