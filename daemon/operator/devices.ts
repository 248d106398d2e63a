import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { sameSecret } from '../../lib/same-secret.js';
import { ExecError } from '../errors/exec-error.js';
import type { DeviceRow, DeviceStore } from '../store/devices.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import { PairingCodes } from './pairing.js';

/** Every device token starts so; the rest is `<device id>.<secret>`. */
const TOKEN_PREFIX = 'atdev.';
const TOKEN_RE = /^atdev\.(dev_[0-9a-z]{16})\.([A-Za-z0-9_-]{43})$/;
/** How often a device's last use is written (the list shows it to the minute). */
const TOUCH_EVERY_MS = 60_000;

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const view = (d: DeviceRow) => ({
  id: d.id,
  name: d.name,
  createdAt: iso(d.createdAt)!,
  lastUsedAt: iso(d.lastUsedAt),
});

/** Whether a bearer value is shaped as a device token (checked against the store only then). */
export function looksLikeDeviceToken(bearer: string): boolean {
  return bearer.startsWith(TOKEN_PREFIX);
}

/**
 * The paired devices of this home: pairing codes, the exchange for a token,
 * the check of a presented token (against the store on every request, so a
 * revocation holds from the next request on, on every daemon of a shared
 * store), and the event streams each device holds open, which a revocation
 * ends at once.
 */
export class PairedDevices {
  readonly codes: PairingCodes;
  private readonly streams = new Map<string, Set<() => void>>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: DeviceStore,
    private readonly owner: string,
    private readonly clock: Clock,
  ) {
    this.codes = new PairingCodes(clock);
  }

  /** The device a bearer token names, when the token is its current one and it is not revoked. */
  async verify(bearer: string): Promise<DeviceRow | null> {
    const m = TOKEN_RE.exec(bearer);
    if (!m) return null;
    const row = await this.store.active(this.owner, m[1]!);
    if (!row || !sameSecret(row.tokenHash, hashOf(m[2]!))) return null;
    const now = this.clock.now();
    if (now - (this.touched.get(row.id) ?? 0) >= TOUCH_EVERY_MS) {
      this.touched.set(row.id, now);
      await this.store.touch(row.id, now);
    }
    return row;
  }

  /** A streaming response to a device, ended when the device is revoked. */
  track(deviceId: string, res: Response): Response {
    if (!res.body || !/event-stream|ndjson/.test(res.headers.get('content-type') ?? '')) return res;
    const reader = res.body.getReader();
    const set = this.streams.get(deviceId) ?? new Set<() => void>();
    this.streams.set(deviceId, set);
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    const forget = () => {
      set.delete(end);
      if (set.size === 0 && this.streams.get(deviceId) === set) this.streams.delete(deviceId);
    };
    function end(): void {
      forget();
      try {
        ctl.close();
      } catch {
        // already closed
      }
      void reader.cancel('device revoked').catch(() => undefined);
    }
    set.add(end);
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        ctl = c;
      },
      pull: async (c) => {
        try {
          const r = await reader.read();
          if (r.done) {
            forget();
            c.close();
          } else c.enqueue(r.value);
        } catch (err) {
          forget();
          c.error(err);
        }
      },
      cancel: (reason) => {
        forget();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, headers: res.headers });
  }

  /** Open streams of one device (tests). */
  openStreams(deviceId: string): number {
    return this.streams.get(deviceId)?.size ?? 0;
  }

  handlers(): Pick<
    OperatorHandlers,
    'devices.pair' | 'devices.exchange' | 'devices.list' | 'devices.revoke'
  > {
    return {
      'devices.pair': () => {
        const { code, expiresAt } = this.codes.issue();
        return { code, expiresAt: iso(expiresAt)! };
      },
      'devices.exchange': async ({ body }) => {
        if (!this.codes.spend(body.code))
          throw new ExecError(
            'forbidden',
            'the pairing code is not valid: mistyped, already used or expired (ask for a new one with `agentteam device pair`)',
          );
        const id = `dev_${randomBytes(10).toString('hex').slice(0, 16)}`;
        const secret = randomBytes(32).toString('base64url');
        if (!(await this.store.add(this.owner, id, body.name, hashOf(secret))))
          throw new ExecError('busy', 'too many paired devices: revoke one first');
        const row = await this.store.active(this.owner, id);
        return { device: view(row!), token: `${TOKEN_PREFIX}${id}.${secret}` };
      },
      'devices.list': async () => ({ devices: (await this.store.list(this.owner)).map(view) }),
      'devices.revoke': async ({ params }) => {
        const revoked = await this.store.revoke(this.owner, params.id);
        if (!revoked) throw new ExecError('not_found', `no paired device ${params.id}`);
        for (const end of [...(this.streams.get(params.id) ?? [])]) end();
        this.touched.delete(params.id);
        return { id: params.id, revoked };
      },
    };
  }
}
