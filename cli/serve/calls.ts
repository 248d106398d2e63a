import { createRequire } from 'node:module';
import type { DaemonLink, LinkEvent } from '../daemon-link.js';
import { resultParams, RpcFailure } from './params.js';
import { STDIO_WIRE } from '../../catalog/stdio-tools.js';
import {
  STDIO_CANCEL_REASONS,
  STDIO_IDENTITY_KEYS,
  type StdioCall,
  type StdioCallIdentity,
  type StdioCancelReason,
} from '../../catalog/operator/stdio-call.js';
import { WIRE_VALIDATORS_FILE } from '../../lib/generated.js';

/**
 * The calls in flight between the daemon and the app: a request on the
 * daemon's event stream goes out as `client.tool.call` with the identity
 * the app must copy; its `client.tool.result` goes back as the daemon's
 * reply route; a cancellation from the daemon goes out as
 * `client.tool.cancel`. A call the app owes an answer is kept by its
 * call_id until it is answered, expires or is cancelled.
 */

interface Call {
  readonly requestId: string;
  readonly identity: StdioCallIdentity;
}

/** The call of a request event, checked by the validator the build generates from the catalog's schema. */
const isStdioCall = (
  createRequire(import.meta.url)(WIRE_VALIDATORS_FILE) as {
    stdioCall: (v: unknown) => v is StdioCall;
  }
).stdioCall;

/** The daemon's reason, or `cancelled` for one the stdio contract does not name. */
const cancelReason = (reason: unknown): StdioCancelReason =>
  STDIO_CANCEL_REASONS.find((r) => r === reason) ?? 'cancelled';

interface RelayDeps {
  /** Writes one frame as is. */
  out(frame: unknown): 'ok' | 'too_large' | 'overflow';
  /** Writes one frame; an app that does not read ends the session. */
  send(frame: unknown): void;
  fatal(message: string): void;
  /** The link to the daemon, once initialize made it. */
  link(): DaemonLink | null;
  instanceId(): string;
  /** The session closed: nothing more is relayed. */
  closed(): boolean;
}

export class CallRelay {
  /** call_id -> call, while the app owes an answer. */
  private readonly calls = new Map<string, Call>();
  /** request id -> call_id, for cancellations from the daemon. */
  private readonly byRequest = new Map<string, string>();
  /** request id -> call, while its result is on its way to the daemon (a cancellation meanwhile sets `cancelled`). */
  private readonly answering = new Map<string, { call: Call; cancelled?: string }>();

  constructor(private readonly deps: RelayDeps) {}

  /** A frame from the daemon's event stream. */
  event(e: LinkEvent): void {
    if (this.deps.closed()) return;
    if (e.type === 'client_tool.request') {
      const d = e.data;
      const call = d.call;
      const requestId = d.request_id;
      if (!isStdioCall(call) || typeof requestId !== 'string') return;
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
        params: { instance_id: this.deps.instanceId(), data, ...(meta ? { _meta: meta } : {}) },
      });
      if (r === 'too_large') {
        // Fails here, never sent: the agent reads client_tool_payload_limit.
        void this.deps
          .link()
          ?.client.send('clientTools.result', {
            params: { id: requestId },
            body: {
              client_id: this.deps.instanceId(),
              ok: false,
              error: {
                code: 'client_tool_payload_limit',
                message: `the call does not fit one ${STDIO_WIRE.outputFrameBytes}-byte stdio frame`,
              },
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
      const requestId = String(e.data.request_id);
      const callId = this.byRequest.get(requestId);
      const inFlight = this.answering.get(requestId);
      if (inFlight) inFlight.cancelled = String(e.data.call_reason);
      if (callId === undefined) return;
      const call = this.calls.get(callId);
      this.forget(requestId);
      if (!call) return;
      // The daemon names the reason in the stdio contract's words (call_reason).
      this.cancel(call, cancelReason(e.data.call_reason));
    }
  }

  private cancel(call: Call, reason: StdioCancelReason): void {
    const { session_id, run_id, call_id, task_id, subagent_id } = call.identity;
    this.deps.send({
      jsonrpc: '2.0',
      method: 'client.tool.cancel',
      params: {
        instance_id: this.deps.instanceId(),
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
  lost(why: string): void {
    for (const call of [...this.calls.values()]) this.cancel(call, 'shutdown');
    this.calls.clear();
    this.byRequest.clear();
    this.deps.fatal(why);
  }

  async result(raw: unknown): Promise<unknown> {
    const params = resultParams(raw);
    const hasStructured = Object.hasOwn(params, 'structured');
    const call = this.calls.get(params.call_id);
    const stale = (why: string) => new RpcFailure('stale_client_tool_call', why);
    if (params.instance_id !== this.deps.instanceId())
      throw stale('instance_id names another child');
    if (!call)
      throw stale(`call ${params.call_id} is unknown, already answered, expired or cancelled`);
    for (const k of STDIO_IDENTITY_KEYS)
      if (params[k] !== call.identity[k]) throw stale(`${k} does not match the call`);
    // While the daemon decides, the call is answered as far as the app is concerned: a second result is stale.
    this.forget(call.requestId);
    const flight: { call: Call; cancelled?: string } = { call };
    this.answering.set(call.requestId, flight);
    const { status, envelope } = await this.deps
      .link()!
      .client.send('clientTools.reply', {
        params: { id: call.requestId },
        body: {
          client_id: this.deps.instanceId(),
          status: params.status,
          text: params.text,
          ...(hasStructured ? { structured: params.structured } : {}),
        },
      })
      .finally(() => this.answering.delete(call.requestId));
    if (status === 200 && envelope?.ok) return { accepted: true };
    const error = envelope?.ok === false ? envelope.error : undefined;
    const code = error?.code;
    if (code === 'unknown_request' || code === 'already_settled')
      throw stale(`call ${params.call_id} already ended (expired or cancelled)`);
    if (code === 'validation_failed') {
      // The result gate refused the result (masking made two keys equal, it cannot fit): the call is still pending,
      // so the app may answer again with a fresh id, unless a cancellation came meanwhile.
      const reason = flight.cancelled;
      if (reason === undefined) {
        this.calls.set(call.identity.call_id, call);
        this.byRequest.set(call.requestId, call.identity.call_id);
      } else this.cancel(call, cancelReason(reason));
      throw new RpcFailure('invalid_params', error?.message ?? 'the daemon refused the result');
    }
    throw new RpcFailure(
      'unavailable',
      `the daemon did not accept the result: ${error?.message ?? `HTTP ${status}`}`,
    );
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
