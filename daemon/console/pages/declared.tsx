import type { OperatorCallOutput } from '../../../lib/operator-client.js';
import { Csrf } from '../layout.js';

/** The two rows' answers the page shows, as their output schemas type them. */
type DeclaredData = Pick<OperatorCallOutput<'tools.list'>, 'declarations'> &
  OperatorCallOutput<'tools.log'>;

/** Declared tools: what loaded, the problems (file and JSON pointer), questions to answer, and what tools showed (GET /api/v1/tools, /api/v1/tools/log). */
export function DeclaredBody(props: { data: DeclaredData; csrf: string }) {
  const { declarations: dec, events, pending } = props.data;
  const shown = events.filter((e) => e.type === 'tool.shown').reverse();
  return (
    <>
      <h1>Declared tools</h1>
      <p class="mute">
        From <code>{dec.dir}</code>
      </p>
      <h2>
        Questions awaiting an answer <span class="mute">({pending.length})</span>
      </h2>
      {pending.length === 0 ? (
        <p class="mute">No tool is waiting for an answer.</p>
      ) : (
        pending.map((q) => (
          <section class="card" data-ask={q.askId} aria-label={`Question from ${q.tool}`}>
            <strong class="mono">{q.tool}</strong>{' '}
            <span class="mute">
              asked for {q.agent} on {q.serverId}
            </span>
            <pre>{q.question}</pre>
            <form
              class="inline"
              method="post"
              action={`/console/tools/asks/${encodeURIComponent(q.askId)}/answer`}
            >
              <Csrf token={props.csrf} />
              <label>
                Answer <input name="answer" size={40} maxlength={20000} required />
              </label>
              <button type="submit">Send answer</button>
            </form>
          </section>
        ))
      )}
      <h2>
        Problems <span class="mute">({dec.problems.length})</span>
      </h2>
      {dec.problems.length === 0 ? (
        <p class="mute">Every declaration file loaded.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>File</th>
                <th>Pointer</th>
                <th>Problem</th>
              </tr>
            </thead>
            <tbody>
              {dec.problems.map((p) => (
                <tr data-problem={p.file}>
                  <td class="mono">{p.file}</td>
                  <td class="mono">{p.pointer}</td>
                  <td class="bad">{p.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>
        Loaded <span class="mute">({dec.loaded.length})</span>
      </h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Tool</th>
              <th>Transport</th>
              <th>File</th>
            </tr>
          </thead>
          <tbody>
            {dec.loaded.map((l) => (
              <tr>
                <td class="mono">{l.name}</td>
                <td>{l.transport}</td>
                <td class="mono">{l.file}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>What tools showed</h2>
      {shown.length === 0 ? (
        <p class="mute">Nothing shown yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Time</th>
                <th>Tool</th>
                <th>Agent</th>
                <th>Shown</th>
              </tr>
            </thead>
            <tbody>
              {shown.slice(0, 50).map((e) => (
                <tr>
                  <td class="mono">{e.at ?? ''}</td>
                  <td class="mono">{e.tool}</td>
                  <td>{e.agent}</td>
                  <td>
                    <pre>{e.text}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
