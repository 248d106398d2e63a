import { DelegatedScopes, type ScopedSession } from './client-tool-scopes.js';

export interface ClientToolsData {
  readonly counts: { clients: number; groups: number; tools: number; pending: number };
  readonly revision: number;
  readonly tools: readonly {
    name: string;
    group: string;
    fingerprint: string;
    timeout_ms?: number;
    timeout_s?: number;
  }[];
  readonly requests: readonly {
    request_id: string;
    group: string;
    tool: string;
    state: 'pending' | 'claimed';
  }[];
  readonly clients: readonly { clientId: string; provider: boolean; groups: readonly string[] }[];
  readonly scopes: readonly ScopedSession[];
}

/** Client tools: the connected apps (counts as `daemon status` gives them) and their groups, the tools, calls waiting or claimed, saved delegated scopes. */
export function ClientToolsBody(props: { data: ClientToolsData }) {
  const { counts, tools, requests, revision, clients } = props.data;
  const groups = new Map<string, string[]>();
  for (const t of tools) groups.set(t.group, [...(groups.get(t.group) ?? []), t.name]);
  const cards: [string, number][] = [
    ['Connected apps', counts.clients],
    ['Groups', counts.groups],
    ['Tools', counts.tools],
    ['Calls waiting or claimed', counts.pending],
  ];
  return (
    <>
      <h1>Client tools</h1>
      <div class="cards">
        {cards.map(([k, v]) => (
          <div class="card" data-stat={k}>
            <span class="mute">{k}</span>
            <b>{v}</b>
          </div>
        ))}
      </div>
      <h2>
        Connected apps <span class="mute">({clients.length})</span>
      </h2>
      {clients.length === 0 ? (
        <p class="mute">No app is connected.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Client</th>
                <th>Kind</th>
                <th>Groups</th>
              </tr>
            </thead>
            <tbody>
              {clients.map((a) => (
                <tr data-client={a.clientId}>
                  <td class="mono">{a.clientId}</td>
                  <td>{a.provider ? 'provider' : 'listener'}</td>
                  <td>
                    {a.groups.length === 0 ? <span class="mute">none</span> : a.groups.join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>
        Groups and tools <span class="mute">(revision {revision})</span>
      </h2>
      {tools.length === 0 ? (
        <p class="mute">No app lends tools right now.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Group</th>
                <th>Tool</th>
                <th>Timeout</th>
                <th class="wide">Fingerprint</th>
              </tr>
            </thead>
            <tbody>
              {tools.map((t) => (
                <tr data-tool={t.name}>
                  <td>{t.group}</td>
                  <td class="mono">{t.name}</td>
                  <td>
                    {t.timeout_ms !== undefined ? `${t.timeout_ms} ms` : `${t.timeout_s ?? '—'} s`}
                  </td>
                  <td class="mono wide">{t.fingerprint}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="mute">
        {groups.size} group{groups.size === 1 ? '' : 's'} offered.
      </p>
      <h2>
        Calls <span class="mute">({requests.length})</span>
      </h2>
      {requests.length === 0 ? (
        <p class="mute">No call waits for an app.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Request</th>
                <th>Group</th>
                <th>Tool</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {requests.map((r) => (
                <tr data-request={r.request_id}>
                  <td class="mono">{r.request_id}</td>
                  <td>{r.group}</td>
                  <td class="mono">{r.tool}</td>
                  <td>{r.state}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <DelegatedScopes sessions={props.data.scopes} />
    </>
  );
}
