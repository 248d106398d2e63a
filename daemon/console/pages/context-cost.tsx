import type { Report } from '../../../lib/token-report.js';

/** As `token analyze` prints a share. */
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Context cost: the `agentteam token analyze` tables (surfaces, then tool definitions) for each runtime kind. */
export function ContextCostBody(props: { reports: readonly Report[] }) {
  const first = props.reports[0];
  return (
    <>
      <h1>Context cost</h1>
      <p class="mute">
        What the agentteam tool surface costs each runtime's context, counted with{' '}
        {first?.tokenizer ?? '—'}; the same tables as{' '}
        <code>agentteam token analyze --runtime KIND</code>.
      </p>
      {props.reports.map((r) => (
        <section data-runtime={r.runtime} aria-label={`Runtime ${r.runtime}`}>
          <h2>{r.runtime}</h2>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Surface</th>
                  <th class="num">Bytes</th>
                  <th class="num">Tokens</th>
                </tr>
              </thead>
              <tbody>
                {r.surfaces.map((s) => (
                  <tr data-surface={s.name}>
                    <td class="mono">{s.name}</td>
                    <td class="num">{s.bytes}</td>
                    <td class="num">{s.tokens}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <details>
            <summary>Tool definitions ({r.tools.length})</summary>
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th>Tool definition</th>
                    <th class="num">Bytes</th>
                    <th class="num">Tokens</th>
                    <th class="num">Share</th>
                  </tr>
                </thead>
                <tbody>
                  {r.tools.map((t) => (
                    <tr>
                      <td class="mono">{t.name}</td>
                      <td class="num">{t.bytes}</td>
                      <td class="num">{t.tokens}</td>
                      <td class="num">{pct(t.share)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </section>
      ))}
    </>
  );
}
