/**
 * One event on the daemon-wide event bus: what the operator event streams
 * (`GET /api/v1/events`) carry. The client-tools broker publishes its calls
 * and changes on it, the operator parts their tool cards and the daemon its
 * diagnostic lines.
 */
export interface DaemonEvent {
  readonly type:
    | 'client_tool.request'
    | 'client_tool.cancelled'
    | 'client_tools.changed'
    | 'tool.shown'
    | 'tool.asked'
    | 'tool.answered'
    | 'daemon.log'
    | 'turn.started'
    | 'turn.finished'
    | 'run.started'
    | 'run.finished';
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
