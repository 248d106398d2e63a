import { randomBytes } from 'node:crypto';
import { sameSecret } from '../../lib/same-secret.js';
import { ExecError } from '../errors/exec-error.js';

/**
 * The connected clients of the broker: one per open event stream, each with
 * the groups it provides and a key only the stream's own reader learns.
 */

interface Client {
  readonly id: string;
  readonly provider: boolean;
  readonly groups: Set<string>;
  /**
   * A secret only the stream's own reader learns (its hello frame). A client
   * id is no secret (a stdio group is named after it, messages name
   * claimants), so a stdio child proves with this key that it is the
   * session that opened the stream; from its registration on, nothing may
   * act as that client without it.
   */
  readonly key: string;
  /** Registered a stdio group: every call acting as this client must carry `key`. */
  bound: boolean;
}

/** The client-key header a stdio child sends with each call acting as itself. */
export const CLIENT_KEY_HEADER = 'AgentTeam-Client-Key';

export class Clients {
  private readonly byId = new Map<string, Client>();

  get size(): number {
    return this.byId.size;
  }

  /** A new connected client (one event stream); `provider` streams may register tools and serve calls. */
  connect(provider: boolean): string {
    const id = `c_${randomBytes(9).toString('base64url')}`;
    this.byId.set(id, {
      id,
      provider,
      groups: new Set(),
      key: randomBytes(18).toString('base64url'),
      bound: false,
    });
    return id;
  }

  /** The key of a connected client, for its own hello frame only. */
  keyOf(clientId: string): string | undefined {
    return this.byId.get(clientId)?.key;
  }

  /** Forgets a client whose stream closed; the client as it was, if it was connected. */
  remove(clientId: string): Client | undefined {
    const client = this.byId.get(clientId);
    if (client) this.byId.delete(clientId);
    return client;
  }

  /** The connected provider `clientId`; a stdio client only with its key (else it is as unknown as one not connected). */
  provider(clientId: string, key?: string): Client {
    const c = this.byId.get(clientId);
    if (!c || (c.bound && !sameSecret(c.key, key))) {
      throw new ExecError(
        'unknown_client',
        `client ${JSON.stringify(clientId)} is not connected; open GET /api/v1/events?client_tools=1 and use the client_id of its hello`,
      );
    }
    if (!c.provider)
      throw new ExecError(
        'unknown_client',
        `client ${clientId} did not open its event stream with client_tools=1`,
      );
    return c;
  }

  /** The connected clients as an operator sees them: what each is and the groups it holds, never its key. */
  connected(): { clientId: string; provider: boolean; groups: string[] }[] {
    return [...this.byId.values()].map((c) => ({
      clientId: c.id,
      provider: c.provider,
      groups: [...c.groups].sort(),
    }));
  }
}
