import { Csrf } from '../layout.js';
import { TASK_STATES, type TaskDetailData } from '../tasks-read.js';
import { turnHref } from './tasks.js';

/**
 * One task: its fields, the forms that assign it and change its state, the
 * turns on its thread, the thread itself (the assignment a person posted,
 * the agents' answers) and its reviews. Not live: a form being filled in is
 * never redrawn; each action comes back here, and the turns link to their
 * own live pages.
 */
export function TaskDetailBody(props: { data: TaskDetailData; csrf: string }) {
  const { task: t, serverId } = props.data;
  if (!t)
    return (
      <>
        <h1>No such task</h1>
        <p>
          <a href="/console/tasks">Tasks</a>
        </p>
      </>
    );
  const action = (verb: string) =>
    `/console/tasks/${encodeURIComponent(serverId)}/${encodeURIComponent(t.id)}/${verb}`;
  return (
    <>
      <h1>{t.title}</h1>
      <p>
        <a href={`/console/tasks?server=${encodeURIComponent(serverId)}`}>All tasks</a>
      </p>
      <dl class="detail" data-task={t.id} data-state={t.status}>
        <dt>Task</dt>
        <dd class="mono">{t.id}</dd>
        <dt>State</dt>
        <dd>{t.status}</dd>
        <dt>Assignee</dt>
        <dd data-assignee={t.assignee ?? ''}>{t.assignee ?? '—'}</dd>
        <dt>Project</dt>
        <dd>{props.data.project ? props.data.project.name : (t.projectId ?? '—')}</dd>
        <dt>Revision</dt>
        <dd>{t.revision}</dd>
        <dt>Updated</dt>
        <dd class="mono">{t.updatedAt}</dd>
      </dl>
      {t.description ? <p class="pre">{t.description}</p> : null}
      <form method="post" action={action('assign')} class="inline">
        <Csrf token={props.csrf} />
        <input type="hidden" name="revision" value={String(t.revision)} />
        <label>
          Assign to{' '}
          <input name="assignee" value={t.assignee ?? ''} placeholder="agent id" required />
        </label>{' '}
        <button type="submit">Assign</button>
      </form>{' '}
      <form method="post" action={action('state')} class="inline">
        <Csrf token={props.csrf} />
        <input type="hidden" name="revision" value={String(t.revision)} />
        <label>
          State{' '}
          <select name="status">
            {TASK_STATES.map((s) => (
              <option value={s} selected={s === t.status}>
                {s}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="submit">Set state</button>
      </form>
      <h2>
        Turns on this task <span class="mute">({props.data.turns.length})</span>
      </h2>
      {props.data.turns.length === 0 ? (
        <p class="mute">No agent has been started on it.</p>
      ) : (
        <ul>
          {props.data.turns.map((x) => (
            <li data-turn={x.id} data-state={x.state}>
              <a href={turnHref(serverId, x.id)}>{x.id}</a> {x.agentId} {x.state}
              {x.error ? ` (${x.error})` : ''}
            </li>
          ))}
        </ul>
      )}
      <h2>Thread</h2>
      {props.data.messages.length === 0 ? (
        <p class="mute">Nothing written on task:{t.id} yet.</p>
      ) : (
        props.data.messages.map((m) => (
          <div class="message" data-message={m.id} data-author={m.author}>
            <p class="mute">
              {m.author} at <span class="mono">{m.createdAt}</span>
            </p>
            <p class="pre">{m.content}</p>
          </div>
        ))
      )}
      <h2>Reviews</h2>
      {props.data.reviews.length === 0 ? (
        <p class="mute">No review yet.</p>
      ) : (
        props.data.reviews.map((r) => (
          <div class="message" data-review={r.id}>
            <p class="mute">
              {r.author}: {r.verdict} at <span class="mono">{r.createdAt}</span>
            </p>
            <p class="pre">{r.body}</p>
          </div>
        ))
      )}
    </>
  );
}
