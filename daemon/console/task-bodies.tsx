import type { Context } from 'hono';
import type { ConsoleOperator } from './operator-client.js';
import type { Body, ConsoleEnv } from './page-bodies.js';
import { TaskDetailBody } from './pages/task.js';
import { NewTaskBody, TasksBody } from './pages/tasks.js';
import { readTaskDetail, readTasks, TASK_STATES, type TaskState } from './tasks-read.js';

/** The newest turns the Tasks page looks through for each task's latest (the read's page size). */
const TURNS = 100;

/**
 * The bodies of the Tasks pages: the list (live: a task's turn shows its
 * state as it runs), a task (with its forms, not live), and the forms
 * that create a task or a project. Tasks are kept per server: `?server=`,
 * else the default server (where `agentteam task create` writes).
 */
export function taskPageBodies(
  op: ConsoleOperator,
  defaultServer: string,
): { tasks: Body; task: Body; newTask: Body } {
  const serverOf = (c: Context) => {
    const s = c.req.query('server');
    return s && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(s) ? s : defaultServer;
  };
  const stateOf = (c: Context): TaskState | null => {
    const s = c.req.query('state');
    return (TASK_STATES as readonly string[]).includes(s ?? '') ? (s as TaskState) : null;
  };
  const tasks: Body = async (c) => {
    const serverId = serverOf(c);
    const data = await readTasks(op, serverId, stateOf(c));
    const { turns } = await op.call('reads.turn.list', {
      params: { serverId },
      body: { limit: TURNS },
    });
    return <TasksBody data={data} turns={turns} />;
  };
  const task: Body = async (c: Context<ConsoleEnv>) => (
    <TaskDetailBody
      data={await readTaskDetail(op, serverOf(c), c.req.query('id') ?? '')}
      csrf={c.get('session').csrf}
    />
  );
  const newTask: Body = async (c: Context<ConsoleEnv>) => {
    const serverId = serverOf(c);
    const { projects } = await op.call('reads.project.list', {
      params: { serverId },
      body: { limit: 100 },
    });
    return <NewTaskBody serverId={serverId} projects={projects} csrf={c.get('session').csrf} />;
  };
  return { tasks, task, newTask };
}
