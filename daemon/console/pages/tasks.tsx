import { Csrf } from '../layout.js';
import { TASK_STATES, type ProjectView, type TasksData, type TaskView } from '../tasks-read.js';
import type { TurnView } from '../turns-read.js';

export const taskHref = (serverId: string, id: string) =>
  `/console/task?${new URLSearchParams({ server: serverId, id })}`;
export const turnHref = (serverId: string, id: string) =>
  `/console/turn?${new URLSearchParams({ server: serverId, id })}`;

const stateClass = (s: string) =>
  s === 'done' || s === 'succeeded'
    ? 'ok'
    : s === 'blocked' || s === 'failed' || s === 'interrupted'
      ? 'bad'
      : undefined;

/** The newest turn on each task's thread, by task id. */
function latestTurns(turns: readonly TurnView[]): Map<string, TurnView> {
  const out = new Map<string, TurnView>();
  // Newest first: the first seen for a target is its latest.
  for (const t of turns)
    if (t.target.startsWith('task:') && !out.has(t.target.slice(5))) out.set(t.target.slice(5), t);
  return out;
}

/** Tasks: filtered by state, each with its assignee, project and the newest turn on its thread (live). */
export function TasksBody(props: { data: TasksData; turns: readonly TurnView[] }) {
  const { data } = props;
  const names = new Map(data.projects.map((p) => [p.id, p.name]));
  const latest = latestTurns(props.turns);
  return (
    <>
      <h1>
        Tasks <span class="mute">on {data.serverId}</span>
      </h1>
      <p>
        <a href={`/console/tasks/new?${new URLSearchParams({ server: data.serverId })}`}>
          New task or project
        </a>
      </p>
      <form method="get" action="/console/tasks" class="inline">
        <input type="hidden" name="server" value={data.serverId} />
        <label>
          State{' '}
          <select name="state">
            <option value="">any</option>
            {TASK_STATES.map((s) => (
              <option value={s} selected={s === data.state}>
                {s}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit">Filter</button>
      </form>
      {data.tasks.length === 0 ? (
        <p class="mute">
          {data.state ? `No task is ${data.state}.` : 'No task yet: create one, or let an agent.'}
        </p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Task</th>
                <th>Title</th>
                <th>State</th>
                <th>Assignee</th>
                <th>Project</th>
                <th>Turn</th>
                <th class="wide">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.tasks.map((t) => (
                <TaskRow
                  t={t}
                  serverId={data.serverId}
                  project={t.projectId ? (names.get(t.projectId) ?? t.projectId) : null}
                  turn={latest.get(t.id) ?? null}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data.more ? (
        <p class="mute">
          The {data.tasks.length} most recently updated; <code>agentteam task list</code> pages
          through all.
        </p>
      ) : null}
      <Projects projects={data.projects} />
    </>
  );
}

function TaskRow(props: {
  t: TaskView;
  serverId: string;
  project: string | null;
  turn: TurnView | null;
}) {
  const { t, turn } = props;
  return (
    <tr data-task={t.id} data-state={t.status}>
      <td class="mono">
        <a href={taskHref(props.serverId, t.id)}>{t.id}</a>
      </td>
      <td>{t.title}</td>
      <td class={stateClass(t.status)}>{t.status}</td>
      <td>{t.assignee ?? '—'}</td>
      <td>{props.project ?? '—'}</td>
      <td data-turn-state={turn?.state}>
        {turn ? (
          <a href={turnHref(props.serverId, turn.id)} class={stateClass(turn.state)}>
            {turn.agentId} {turn.state}
          </a>
        ) : (
          '—'
        )}
      </td>
      <td class="mono wide">{t.updatedAt}</td>
    </tr>
  );
}

function Projects(props: { projects: readonly ProjectView[] }) {
  return (
    <>
      <h2>
        Projects <span class="mute">({props.projects.length})</span>
      </h2>
      {props.projects.length === 0 ? (
        <p class="mute">No project yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Project</th>
                <th>Name</th>
                <th>Description</th>
                <th class="wide">Updated</th>
              </tr>
            </thead>
            <tbody>
              {props.projects.map((p) => (
                <tr data-project={p.id}>
                  <td class="mono">{p.id}</td>
                  <td>{p.name}</td>
                  <td>{p.description || '—'}</td>
                  <td class="mono wide">{p.updatedAt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** The forms that create a task (optionally assigned: an agent's turn starts) and a project. Not live: typing is never redrawn. */
export function NewTaskBody(props: {
  serverId: string;
  projects: readonly ProjectView[];
  csrf: string;
}) {
  const server = encodeURIComponent(props.serverId);
  return (
    <>
      <h1>
        New task <span class="mute">on {props.serverId}</span>
      </h1>
      <form method="post" action={`/console/tasks/${server}/create`} class="stack">
        <Csrf token={props.csrf} />
        <label>
          Title <input name="title" required autocomplete="off" />
        </label>
        <label>
          Description <textarea name="description" rows={4}></textarea>
        </label>
        <label>
          Project{' '}
          <select name="projectId">
            <option value="">none</option>
            {props.projects.map((p) => (
              <option value={p.id}>{p.name}</option>
            ))}
          </select>
        </label>
        <label>
          Assign to <input name="assignee" placeholder="agent id (optional)" autocomplete="off" />
        </label>
        <p class="mute">
          Assigned to an agent of the profile, the task is posted to its thread as you and the
          agent's turn starts.
        </p>
        <button type="submit">Create task</button>
      </form>
      <h2>New project</h2>
      <form method="post" action={`/console/projects/${server}/create`} class="stack">
        <Csrf token={props.csrf} />
        <label>
          Name <input name="name" required autocomplete="off" />
        </label>
        <label>
          Description <textarea name="description" rows={2}></textarea>
        </label>
        <button type="submit">Create project</button>
      </form>
      <p>
        <a href={`/console/tasks?server=${server}`}>All tasks</a>
      </p>
    </>
  );
}
