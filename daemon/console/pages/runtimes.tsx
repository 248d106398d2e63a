import type { RuntimeView } from '../../../catalog/operator/runtimes.js';
import { Csrf } from '../layout.js';

/** Runtimes: every authorization holding a lease (GET /api/v1/runtimes), each with a revoke button. */
export function RuntimesBody(props: { runtimes: readonly RuntimeView[]; csrf: string }) {
  const { runtimes } = props;
  return (
    <>
      <h1>
        Runtimes <span class="mute">({runtimes.length})</span>
      </h1>
      {runtimes.length === 0 ? (
        <p class="mute">No runtime holds an authorization.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Server</th>
                <th>Agent</th>
                <th>Runtime</th>
                <th>Session</th>
                <th>State</th>
                <th>Generations (expiry)</th>
                <th class="num">In flight</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {runtimes.map((r) => (
                <tr data-authorization={r.authorizationId}>
                  <td>{r.serverId}</td>
                  <td>{r.agentId}</td>
                  <td>{r.runtime}</td>
                  <td class="mono">{r.sessionId ?? '—'}</td>
                  <td>{r.state}</td>
                  <td class="mono">
                    {r.generations.map((g) => (
                      <div>
                        {g.id} <span class="mute">until {g.expiresAt}</span>
                      </div>
                    ))}
                  </td>
                  <td class="num">{r.inFlight}</td>
                  <td>
                    <form
                      class="inline"
                      method="post"
                      action={`/console/runtimes/${encodeURIComponent(r.authorizationId)}/revoke`}
                      data-confirm={`Revoke ${r.agentId} on ${r.serverId}? Its runtime loses access at once.`}
                    >
                      <Csrf token={props.csrf} />
                      <button type="submit" class="danger" aria-label={`Revoke ${r.agentId}`}>
                        Revoke
                      </button>
                    </form>
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
