import type { Context } from 'hono';
import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import type { DaemonEvent, StreamClients } from './event.js';
import { SSE_HEADERS, openSse, type SseSink } from '../http/sse.js';
import { socketOf, type LongLivedStreams } from '../http/stream-budget.js';
import type { ResultGate } from '../results/gate.js';

/**
 * GET /api/v1/events: the operator event streams (SSE), the daemon-wide
 * event bus every part publishes on. Every stream is a
 * connected client (of the client-tools broker) with its own contiguous `seq`, starting with the hello
 * frame (client_id, features). `?client_tools=1` makes it a provider of
 * client tools; closing it withdraws what that client registered. Events
 * carrying call arguments go in full only to the streams in their audience;
 * the others get the same event reduced to ids, so every stream's seq stays
 * contiguous. `?logs=1` adds the daemon's diagnostic lines (`daemon.log`
 * events, for `agentteam daemon logs --follow`); other streams never see them.
 */

const FEATURES = ['client_tools'] as const;
const DEFAULT_HEARTBEAT_S = 15;
/** Event streams open at once (each is a client of the broker). */
const MAX_STREAMS = 256;

interface Stream {
  readonly clientId: string;
  readonly sink: SseSink;
  /** Opened with `?logs=1`: also gets the daemon's diagnostics (`daemon.log`), which no other stream sees. */
  readonly logs: boolean;
  seq: number;
}

export class EventStreams {
  private readonly streams = new Map<string, Stream>();

  constructor(
    private readonly clock: Clock,
    private readonly clients: () => StreamClients,
    /** The result gate: every event is masked (each string, keys included) before any stream gets it. */
    private readonly gate: ResultGate,
    private readonly budget?: LongLivedStreams,
  ) {}

  /** An event's data as sent: masked; one that cannot be masked intact is replaced by a note saying so. */
  private masked(data: Record<string, unknown>): string {
    try {
      return JSON.stringify(this.gate.maskJson(data));
    } catch {
      return JSON.stringify({
        unmaskable:
          'this event held a secret that could not be masked without changing its structure; it was not sent',
      });
    }
  }

  get size(): number {
    return this.streams.size;
  }

  private frame(s: Stream, type: string, data: unknown): string {
    s.seq++;
    return `id: ${s.seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq: s.seq, type, data })}\n\n`;
  }

  publish(event: DaemonEvent): void {
    const full = this.masked(event.data);
    const redacted = event.redacted === null ? full : this.masked(event.redacted);
    for (const s of this.streams.values()) {
      if (event.type === 'daemon.log' && !s.logs) continue;
      const sees = event.audience === null || event.audience.has(s.clientId);
      s.seq++;
      s.sink.write(
        `id: ${s.seq}\nevent: ${event.type}\ndata: {"seq":${s.seq},"type":${JSON.stringify(event.type)},"data":${sees ? full : redacted}}\n\n`,
      );
    }
  }

  open(c: Context): Response {
    const q = c.req.query();
    const provider = q.client_tools === '1';
    if (q.client_tools !== undefined && q.client_tools !== '1' && q.client_tools !== '0') {
      throw new ExecError('invalid_request', 'client_tools must be 1 or 0');
    }
    if (q.logs !== undefined && q.logs !== '1' && q.logs !== '0')
      throw new ExecError('invalid_request', 'logs must be 1 or 0');
    let heartbeatS = DEFAULT_HEARTBEAT_S;
    if (q.heartbeat_s !== undefined) {
      heartbeatS = /^\d{1,3}$/.test(q.heartbeat_s) ? Number(q.heartbeat_s) : NaN;
      if (!(heartbeatS >= 1 && heartbeatS <= 300))
        throw new ExecError('invalid_request', 'heartbeat_s must be an integer from 1 to 300');
    }
    if (this.streams.size >= MAX_STREAMS)
      throw new ExecError(
        'busy',
        `at most ${MAX_STREAMS} event streams may be open; close one first`,
      );
    const clientId = this.clients().connect(provider);
    const stream: { s: Stream | null } = { s: null };
    const { body, sink } = openSse({
      clock: this.clock,
      heartbeatMs: heartbeatS * 1000,
      heartbeat: () => this.frame(stream.s!, 'heartbeat', {}),
      onClose: () => {
        this.streams.delete(clientId);
        this.clients().disconnect(clientId);
        ticket?.release();
      },
    });
    // Operator streams count against the daemon-wide budget but are shed only after every runtime stream.
    const ticket = this.budget?.admit({
      owner: clientId,
      operator: true,
      kind: 'events',
      socket: socketOf(c),
      shed: () => sink.close(),
    });
    const s: Stream = { clientId, sink, logs: q.logs === '1', seq: 0 };
    stream.s = s;
    this.streams.set(clientId, s);
    sink.write(
      'retry: 2000\n\n' +
        this.frame(s, 'hello', {
          client_id: clientId,
          ...(provider ? { client_key: this.clients().keyOf(clientId) } : {}),
          features: FEATURES,
          provider,
          heartbeat_s: heartbeatS,
        }),
    );
    const conn = c.req.raw.signal;
    if (conn.aborted) sink.close();
    else conn.addEventListener('abort', () => sink.close(), { once: true });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  /** Daemon stop: end every stream. */
  closeAll(): void {
    for (const s of [...this.streams.values()]) s.sink.close();
  }
}
