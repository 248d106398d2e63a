import { Csrf } from '../layout.js';

interface DeviceView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
}

/** Devices: the apps paired with this daemon (GET /api/v1/devices), a pairing button, a revoke button each. */
export function DevicesBody(props: { devices: readonly DeviceView[]; csrf: string }) {
  const { devices } = props;
  return (
    <>
      <h1>
        Devices <span class="mute">({devices.length})</span>
      </h1>
      <p class="mute">
        A paired app (a phone, a desktop app) reads and writes conversations, decides approvals,
        offers client tools and follows the event stream as you; nothing else.
      </p>
      <form method="post" action="/console/devices/pair">
        <Csrf token={props.csrf} />
        <button type="submit">Pair a device</button>
      </form>
      {devices.length === 0 ? (
        <p class="mute">No device is paired.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Id</th>
                <th>Paired</th>
                <th>Last used</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {devices.map((d) => (
                <tr data-device={d.id}>
                  <td>{d.name}</td>
                  <td class="mono">{d.id}</td>
                  <td class="mono">{d.createdAt}</td>
                  <td class="mono">{d.lastUsedAt ?? '—'}</td>
                  <td>
                    <form
                      class="inline"
                      method="post"
                      action={`/console/devices/${encodeURIComponent(d.id)}/revoke`}
                      data-confirm={`Revoke ${d.name}? It loses access at once.`}
                    >
                      <Csrf token={props.csrf} />
                      <button type="submit" class="danger" aria-label={`Revoke ${d.name}`}>
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

/** The one-time code just issued, shown once. */
export function PairingCode(props: { code: string; expiresAt: string }) {
  return (
    <>
      <h1>Pair a device</h1>
      <p>Type this code into the app, once, before {props.expiresAt}:</p>
      <p class="mono" data-pairing-code>
        <strong>{props.code}</strong>
      </p>
      <p>
        <a href="/console/devices">Back to devices</a>
      </p>
    </>
  );
}
