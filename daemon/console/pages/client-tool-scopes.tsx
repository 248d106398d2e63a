/** One saved delegated session as the operator read gives it (`clientTools.scopes`). */
export interface ScopedSession {
  readonly agent: string;
  readonly session: string;
  readonly parent: string;
  readonly task: string;
  readonly kind: 'scoped' | 'inspection' | 'legacy';
  readonly tools: readonly { name: string; fingerprint: string; current: boolean }[];
}

/**
 * The Client tools page's section on saved delegated scopes: one row per
 * delegated session and scoped tool, with whether the tool is still offered
 * with the fingerprint the scope saved (only then may the session call it).
 */
export function DelegatedScopes(props: { sessions: readonly ScopedSession[] }) {
  const { sessions } = props;
  return (
    <>
      <h2>
        Delegated scopes <span class="mute">({sessions.length})</span>
      </h2>
      {sessions.length === 0 ? (
        <p class="mute">No delegated session has a saved scope.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Agent</th>
                <th>Session</th>
                <th>Parent</th>
                <th>Kind</th>
                <th>Tool</th>
                <th>Now</th>
                <th class="wide">Fingerprint</th>
              </tr>
            </thead>
            <tbody>
              {sessions.flatMap((s) =>
                (s.tools.length === 0 ? [null] : s.tools).map((t) => (
                  <tr data-scope={s.session} data-scope-tool={t?.name ?? ''}>
                    <td>{s.agent}</td>
                    <td class="mono">{s.session}</td>
                    <td class="mono">{s.parent}</td>
                    <td>{s.kind}</td>
                    <td class="mono">{t ? t.name : <span class="mute">none</span>}</td>
                    <td>{t ? (t.current ? 'callable' : 'changed or gone') : ''}</td>
                    <td class="mono wide">{t?.fingerprint ?? ''}</td>
                  </tr>
                )),
              )}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
