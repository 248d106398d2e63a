import { CLIENT_TOOLS_CAPABILITY, STDIO_LIMITS, STDIO_WIRE } from '../../catalog/stdio-tools.js';
import { decodeFrame } from '../../lib/json-frame.js';
import type { ApiAnswer, DaemonLink, LinkEvent } from './daemon-link.js';
import { errorFrame, type RpcId } from './wire.js';
import { initializeParams, isObj, resultParams, RpcFailure } from './params.js';

/**
 * One stdio session: the JSON-RPC methods an app may call (`initialize`,
 * `client.tool.result`), the lifetime request ids, and the calls in flight
 * between the daemon's event stream and the app. Output goes through `out`;
 * the daemon is reached through a DaemonLink made on initialize.
 */

interface Identity {
  readonly session_id: string | null;
  readonly run_id: string | null;
  readonly call_id: string;
  readonly task_id: string | null;
  readonly subagent_id: string | null;
}

interface Call {
  readonly requestId: string;
  readonly identity: Identity;
}

const CANCEL_REASONS = ['cancelled', 'timeout', 'run_finished', 'shutdown'];

const IDENTITY_KEYS = ['session_id', 'run_id', 'call_id', 'task_id', 'subagent_id'] as const;

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
  private negotiated = false;
  private link: DaemonLink | null = null;
  /** The link an initialize in progress is opening (closed with the session, whatever the moment). */
  private opening: DaemonLink | null = null;
  /** After close() nothing more is answered or sent, and no link stays open. */
  private closed = false;
  private readonly ids = new Set<RpcId>();
  /** call_id -> call, while the app owes an answer. */
  private readonly calls = new Map<string, Call>();
  /** request id -> call_id, for cancellations from the daemon. */
  private readonly byRequest = new Map<string, string>();
  /** request id -> call, while its result is on its way to the daemon (a cancellation meanwhile sets `cancelled`). */
  private readonly answering = new Map<string, { call: Call; cancelled?: string }>();

  constructor(private readonly deps: SessionDeps) {}

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
    if (method === 'client.tool.result') {
      if (!this.negotiated || this.phase !== 'ready')
        throw new RpcFailure(
          'unsupported_method',
          'client.tool.result needs client.tools negotiated at initialize',
        );
      return this.result(params);
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
    const registered = initializeParams(params);
    if (registered === null) {
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
        (e) => this.event(e),
        (why) => this.lost(why),
      );
      stillOpen();
      const res = await link.call('POST', '/api/v1/client-tools/stdio', {
        client_id: link.clientId,
        ...(this.deps.serverId ? { server_id: this.deps.serverId } : {}),
        tools: registered,
      });
      if (res.status !== 200 || !res.body?.ok) {
        const code = res.body?.error?.code;
        const message = res.body?.error?.message ?? `HTTP ${res.status}`;
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
    this.negotiated = true;
    this.phase = 'ready';
    const tools = registered.map((t) => t.name);
    return {
      instance_id: link.clientId,
      capabilities: [CLIENT_TOOLS_CAPABILITY],
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

  /** A frame from the daemon's event stream. */
  private event(e: LinkEvent): void {
    if (this.closed) return;
    if (e.type === 'client_tool.request') {
      const d = e.data;
      const call = d.call as (Identity & { timeout_ms: number }) | undefined;
      const requestId = d.request_id as string;
      if (!call || typeof requestId !== 'string') return;
      const data = {
        session_id: call.session_id,
        run_id: call.run_id,
        call_id: call.call_id,
        task_id: call.task_id,
        subagent_id: call.subagent_id,
        name: d.tool,
        arguments: d.arguments,
        timeout_ms: call.timeout_ms,
      };
      // The daemon's trace context, when it traces: the app's own spans join the agent's trace.
      const meta = traceMetaOf(d._meta);
      const r = this.deps.out({
        jsonrpc: '2.0',
        method: 'client.tool.call',
        params: { instance_id: this.instanceId, data, ...(meta ? { _meta: meta } : {}) },
      });
      if (r === 'too_large') {
        // Fails here, never sent: the agent reads client_tool_payload_limit.
        void this.link
          ?.call('POST', `/api/v1/client-tools/requests/${encodeURIComponent(requestId)}/result`, {
            client_id: this.instanceId,
            ok: false,
            error: {
              code: 'client_tool_payload_limit',
              message: `the call does not fit one ${STDIO_WIRE.outputFrameBytes}-byte stdio frame`,
            },
          })
          .catch(() => undefined);
        return;
      }
      this.calls.set(call.call_id, { requestId, identity: call });
      this.byRequest.set(requestId, call.call_id);
      if (r === 'overflow')
        this.deps.fatal('the app does not read stdout; more than 512 KiB is queued');
    } else if (e.type === 'client_tool.cancelled') {
      const requestId = e.data.request_id as string;
      const callId = this.byRequest.get(requestId);
      const inFlight = this.answering.get(requestId);
      if (inFlight) inFlight.cancelled = String(e.data.call_reason);
      if (callId === undefined) return;
      const call = this.calls.get(callId);
      this.forget(requestId);
      if (!call) return;
      // The daemon names the reason in the stdio contract's words (call_reason).
      const reason = String(e.data.call_reason);
      this.cancel(call, CANCEL_REASONS.includes(reason) ? reason : 'cancelled');
    }
  }

  private cancel(call: Call, reason: string): void {
    const { session_id, run_id, call_id, task_id, subagent_id } = call.identity;
    this.send({
      jsonrpc: '2.0',
      method: 'client.tool.cancel',
      params: {
        instance_id: this.instanceId,
        data: { session_id, run_id, call_id, task_id, subagent_id, reason },
      },
    });
  }

  private forget(requestId: string): void {
    const callId = this.byRequest.get(requestId);
    this.byRequest.delete(requestId);
    if (callId !== undefined) this.calls.delete(callId);
  }

  /** The daemon's stream ended under us: outstanding calls are told `shutdown`, then the session ends. */
  private lost(why: string): void {
    for (const call of [...this.calls.values()]) this.cancel(call, 'shutdown');
    this.calls.clear();
    this.byRequest.clear();
    this.deps.fatal(why);
  }

  private async result(raw: unknown): Promise<unknown> {
    const params = resultParams(raw);
    const hasStructured = Object.hasOwn(params, 'structured');
    const call = this.calls.get(params.call_id);
    const stale = (why: string) => new RpcFailure('stale_client_tool_call', why);
    if (params.instance_id !== this.instanceId) throw stale('instance_id names another child');
    if (!call)
      throw stale(`call ${params.call_id} is unknown, already answered, expired or cancelled`);
    for (const k of IDENTITY_KEYS)
      if (params[k] !== call.identity[k]) throw stale(`${k} does not match the call`);
    // While the daemon decides, the call is answered as far as the app is concerned: a second result is stale.
    this.forget(call.requestId);
    const flight: { call: Call; cancelled?: string } = { call };
    this.answering.set(call.requestId, flight);
    let res: ApiAnswer;
    try {
      res = await this.link!.call(
        'POST',
        `/api/v1/client-tools/requests/${encodeURIComponent(call.requestId)}/reply`,
        {
          client_id: this.instanceId,
          status: params.status,
          text: params.text,
          ...(hasStructured ? { structured: params.structured } : {}),
        },
      );
    } finally {
      this.answering.delete(call.requestId);
    }
    if (res.status === 200 && res.body?.ok) return { accepted: true };
    const code = res.body?.error?.code;
    if (code === 'unknown_request' || code === 'already_settled')
      throw stale(`call ${params.call_id} already ended (expired or cancelled)`);
    if (code === 'validation_failed') {
      // The result gate refused the result (masking made two keys equal, it cannot fit): the call is still pending,
      // so the app may answer again with a fresh id, unless a cancellation came meanwhile.
      const reason = flight.cancelled;
      if (reason === undefined) {
        this.calls.set(call.identity.call_id, call);
        this.byRequest.set(call.requestId, call.identity.call_id);
      } else this.cancel(call, CANCEL_REASONS.includes(reason) ? reason : 'cancelled');
      throw new RpcFailure(
        'invalid_params',
        res.body?.error?.message ?? 'the daemon refused the result',
      );
    }
    throw new RpcFailure(
      'unavailable',
      `the daemon did not accept the result: ${res.body?.error?.message ?? `HTTP ${res.status}`}`,
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

/** `traceparent` (and `tracestate`) from a request's _meta, only when they are strings of the W3C sizes. */
function traceMetaOf(meta: unknown): { traceparent: string; tracestate?: string } | undefined {
  if (meta === null || typeof meta !== 'object') return undefined;
  const { traceparent, tracestate } = meta as Record<string, unknown>;
  if (
    typeof traceparent !== 'string' ||
    !/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/.test(traceparent)
  )
    return undefined;
  return typeof tracestate === 'string' && tracestate.length <= 512
    ? { traceparent, tracestate }
    : { traceparent };
}
