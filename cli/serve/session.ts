import { CLIENT_TOOLS_CAPABILITY, STDIO_LIMITS, STDIO_WIRE } from '../../catalog/stdio-tools.js';
import { decodeFrame } from '../../lib/json-frame.js';
import type { DaemonLink } from '../daemon-link.js';
import { errorFrame, type RpcId } from './wire.js';
import { initializeParams, isObj, RpcFailure } from './params.js';
import type { StdioToolDescriptor } from '../../catalog/stdio-tools.js';
import { CallRelay } from './calls.js';
import { RunRelay } from './runs.js';

/**
 * One stdio session: the JSON-RPC methods an app may call (`initialize`,
 * `client.tool.result`, `session.create`, `turn.start`, `turn.cancel`) and
 * the lifetime request ids; the calls in flight between the daemon's event
 * stream and the app are calls.ts, sessions and runs runs.ts. Output goes
 * through `out`; the daemon is reached through a DaemonLink made on initialize.
 */

interface SessionDeps {
  /** Writes one frame; returns what writeFrame returned. */
  out(frame: unknown): 'ok' | 'too_large' | 'overflow';
  /** A link to the running daemon (throws when none runs). */
  connect(): DaemonLink;
  /** The daemon went away or the app stopped reading: the session is over. */
  fatal(message: string): void;
  readonly serverId: string | null;
}

export class StdioSession {
  private phase: 'new' | 'initializing' | 'ready' = 'new';
  /** The capabilities initialize negotiated. */
  private caps: ReadonlySet<string> = new Set();
  private link: DaemonLink | null = null;
  /** The link an initialize in progress is opening (closed with the session, whatever the moment). */
  private opening: DaemonLink | null = null;
  /** After close() nothing more is answered or sent, and no link stays open. */
  private closed = false;
  private readonly ids = new Set<RpcId>();
  /** The calls in flight between the daemon and the app (calls.ts). */
  private readonly relay: CallRelay;
  private readonly runs: RunRelay;

  constructor(private readonly deps: SessionDeps) {
    this.relay = new CallRelay({
      out: (frame) => deps.out(frame),
      send: (frame) => this.send(frame),
      fatal: (message) => deps.fatal(message),
      link: () => this.link,
      instanceId: () => this.instanceId,
      closed: () => this.closed,
    });
    this.runs = new RunRelay({
      send: (frame) => this.send(frame),
      link: () => this.link,
      instanceId: () => this.instanceId,
      serverId: deps.serverId,
    });
  }

  get instanceId(): string {
    return this.link?.clientId ?? '';
  }

  /** One input line (LF already cut off, within the input bound). */
  async frame(bytes: Uint8Array): Promise<void> {
    if (this.closed) return;
    const decoded = decodeFrame(bytes, STDIO_WIRE.jsonDepth);
    if (!decoded.ok && decoded.problem.kind === 'duplicate_key') {
      // A repeated field (a descriptor's, say) makes the params invalid when the request itself is readable;
      // a repeated key in a frame that is not JSON at all is the parse error it is.
      let msg: unknown;
      try {
        msg = JSON.parse(Buffer.from(bytes).toString('utf8'));
      } catch (err) {
        return this.send(
          errorFrame(
            null,
            'invalid_json',
            `the frame is not one JSON value (${(err as Error).message.slice(0, 120)})`,
          ),
        );
      }
      const id =
        isObj(msg) &&
        (typeof msg.id === 'string' || (typeof msg.id === 'number' && Number.isSafeInteger(msg.id)))
          ? msg.id
          : null;
      if (id === null)
        return this.send(errorFrame(null, 'invalid_request', decoded.problem.message));
      if (this.admit(id)) this.send(errorFrame(id, 'invalid_params', decoded.problem.message));
      return;
    }
    if (!decoded.ok) {
      const p = decoded.problem;
      return this.send(
        errorFrame(null, p.kind === 'depth' ? 'invalid_request' : 'invalid_json', p.message),
      );
    }
    const msg = decoded.value;
    if (!isObj(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
      // Responses are never expected (the child sends only notifications); anything else is malformed.
      const id =
        isObj(msg) && (typeof msg.id === 'string' || typeof msg.id === 'number') ? msg.id : null;
      return this.send(
        errorFrame(
          id,
          'invalid_request',
          'expected a JSON-RPC 2.0 request {jsonrpc: "2.0", id, method, params}',
        ),
      );
    }
    if (!Object.hasOwn(msg, 'id')) return; // a notification: nothing to answer
    const id = msg.id;
    if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) {
      return this.send(errorFrame(null, 'invalid_request', 'id must be a string or an integer'));
    }
    if (!this.admit(id)) return;
    try {
      const result = await this.dispatch(msg.method, msg.params);
      this.send({ jsonrpc: '2.0', id, result });
      // A run's notifications follow its turn.start answer.
      this.runs.release();
    } catch (err) {
      if (err instanceof RpcFailure) this.send(errorFrame(id, err.code, err.message));
      else this.send(errorFrame(id, 'internal', 'internal error'));
    }
  }

  /** Takes a request id for life; false (and the error sent) for a used id or once 4096 were taken. */
  private admit(id: RpcId): boolean {
    if (this.ids.has(id)) {
      this.send(
        errorFrame(
          id,
          'duplicate_id',
          `request id ${JSON.stringify(id)} was already used; every request needs a fresh id`,
        ),
      );
      return false;
    }
    if (this.ids.size >= STDIO_WIRE.lifetimeRequestIds) {
      this.send(
        errorFrame(
          id,
          'request_ids_exhausted',
          `this child has accepted its ${STDIO_WIRE.lifetimeRequestIds} lifetime request ids; restart it`,
        ),
      );
      return false;
    }
    this.ids.add(id);
    return true;
  }

  private send(frame: unknown): void {
    if (this.closed) return;
    const r = this.deps.out(frame);
    if (r === 'overflow')
      this.deps.fatal('the app does not read stdout; more than 512 KiB is queued');
    // Responses are small (the initialize answer is bounded by the registry limit); never too large.
  }

  private dispatch(method: string, params: unknown): Promise<unknown> | unknown {
    if (method === 'initialize') return this.initialize(params);
    const needs = (capability: string) => {
      if (!this.caps.has(capability) || this.phase !== 'ready')
        throw new RpcFailure(
          'unsupported_method',
          `${method} needs ${JSON.stringify(capability)} negotiated at initialize`,
        );
    };
    if (method === 'client.tool.result') {
      needs(CLIENT_TOOLS_CAPABILITY);
      return this.relay.result(params);
    }
    if (method === 'session.create') {
      needs('session.create');
      return this.runs.create(params);
    }
    if (method === 'turn.start' || method === 'turn.cancel') {
      needs('turn.start');
      return method === 'turn.start' ? this.runs.start(params) : this.runs.cancel(params);
    }
    throw new RpcFailure(
      'unsupported_method',
      `unknown method ${JSON.stringify(method.slice(0, 64))}`,
    );
  }

  private async initialize(params: unknown): Promise<unknown> {
    if (this.phase !== 'new')
      throw new RpcFailure(
        'invalid_request',
        this.phase === 'ready'
          ? 'already initialized; restart the child to change its registration'
          : 'initialize is in progress',
      );
    const { capabilities, tools: registered } = initializeParams(params);
    if (capabilities.length === 0) {
      this.phase = 'ready';
      return { capabilities: [] };
    }
    // The whole registry is valid: now the effects (connect, register).
    this.phase = 'initializing';
    let link: DaemonLink | null = null;
    // The session may close at any await below (an oversized frame, stdin ending): then nothing is kept.
    const stillOpen = () => {
      if (this.closed) throw new RpcFailure('unavailable', 'the session closed during initialize');
    };
    try {
      link = this.deps.connect();
      this.opening = link;
      await link.open(
        (e) => {
          if (!this.runs.event(e)) this.relay.event(e);
        },
        (why) => this.relay.lost(why),
      );
      stillOpen();
      if (registered) await this.register(link, registered);
      stillOpen();
    } catch (err) {
      link?.close();
      this.phase = 'new';
      if (err instanceof RpcFailure) throw err;
      throw new RpcFailure('unavailable', (err as Error).message);
    } finally {
      this.opening = null;
    }
    this.link = link;
    this.caps = new Set(capabilities);
    this.phase = 'ready';
    if (!registered) return { instance_id: link.clientId, capabilities };
    const tools = registered.map((t) => t.name);
    return {
      instance_id: link.clientId,
      capabilities,
      client_tools: { tools, limits: STDIO_LIMITS },
      extensions: {
        [CLIENT_TOOLS_CAPABILITY]: {
          schema_version: 1,
          registration: 'startup_only',
          tools,
          limits: STDIO_LIMITS,
        },
      },
    };
  }

  /** The child's one registration of the app's tools. */
  private async register(link: DaemonLink, registered: StdioToolDescriptor[]): Promise<void> {
    const { status, envelope } = await link.client.send('clientTools.stdio', {
      body: {
        client_id: link.clientId,
        ...(this.deps.serverId ? { server_id: this.deps.serverId } : {}),
        tools: registered,
      },
    });
    if (status === 200 && envelope?.ok) return;
    const error = envelope?.ok === false ? envelope.error : undefined;
    const code = error?.code;
    const message = error?.message ?? `HTTP ${status}`;
    throw new RpcFailure(
      code === 'invalid_tool' ||
        code === 'name_conflict' ||
        code === 'too_many_tools' ||
        code === 'inventory_too_large'
        ? 'invalid_params'
        : 'unavailable',
      `the daemon refused the registration (${code ?? 'error'}): ${message}`,
    );
  }

  /**
   * stdin closed, an oversized frame, or the child stops, at any moment
   * (initialize included): nothing more is answered, the event stream closes
   * (the daemon withdraws the tools with it), and a link still being opened
   * is closed too, so the process can end.
   */
  close(): void {
    this.closed = true;
    this.link?.close();
    this.opening?.close();
  }
}
