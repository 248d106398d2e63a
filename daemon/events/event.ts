import type { EventKind } from '../../catalog/event-kinds.js';

/**
 * One event on the daemon-wide event bus: what the operator event streams
 * (`GET /api/v1/events`) carry. The client-tools broker publishes its calls
 * and changes on it, the operator parts their tool cards, the daemon its
 * diagnostic lines, the turn runner its turns and the store its committed
 * messages, approvals and tasks (events/store-events.ts).
 */
export interface DaemonEvent {
  /** A kind of catalog/event-kinds.ts (the stream's own frames, hello and heartbeat, are not published). */
  readonly type: Exclude<EventKind, 'hello' | 'heartbeat'>;
  readonly data: Record<string, unknown>;
  /** What streams outside `audience` see instead (ids only); null when everyone sees `data`. */
  readonly redacted: Record<string, unknown> | null;
  /** Client ids that see `data`; null = every stream. */
  readonly audience: ReadonlySet<string> | null;
}

/**
 * Who the streams are: every stream is a connected client, and a provider
 * stream (`?client_tools=1`) may offer tools; the client-tools broker is
 * this registry in the daemon.
 */
export interface StreamClients {
  /** A new client id for a stream that just opened. */
  connect(provider: boolean): string;
  /** The stream closed: what its client registered is withdrawn. */
  disconnect(clientId: string): void;
  /** The key a provider stream's hello frame carries (it proves the client on its calls). */
  keyOf(clientId: string): string | undefined;
}
