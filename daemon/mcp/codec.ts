import type { Context } from 'hono';
import { RPC, errorFrame, resultFrame, type RpcId } from './jsonrpc.js';
import type { CallContext } from '../tools/registry.js';
import type { AuditNote } from '../audit/note.js';
import type { Principal } from '../auth/principal.js';
import { THREAD_HEADER, callThreadId } from '../http/child-gate.js';

/**
 * What differs between MCP wire revisions, kept apart from the handlers.
 *
 * Modelled on the official TypeScript SDK (modelcontextprotocol/typescript-sdk,
 * packages/core-internal/src/wire/): its `Protocol` keeps one
 * `_requestHandlers` Map keyed by method, and each wire era has a codec
 * (`rev2025-11-25/codec.ts`, `rev2026-07-28/codec.ts`) that owns the era's
 * method registry (a method outside it is -32601 by absence, whatever
 * handler exists), the per-request `_meta` envelope check (required only in
 * 2026) and `encodeResult` (identity for 2025; `resultType`, the cache
 * fields and the serverInfo stamp for 2026). Two things differ here: the
 * era is picked per request, since the endpoint is stateless, and results
 * are spliced as already serialized strings rather than re-encoded objects.
 */
export interface RevisionCodec {
  /** The methods the revision defines; any other is answered by `notFound`. */
  readonly methods: ReadonlySet<string>;
  /**
   * Reads and checks what the request declares about itself (version,
   * client capabilities, client info). Null: dispatch it; else the refusal.
   */
  admit(c: Context, id: RpcId, method: string, params: Record<string, unknown>): Response | null;
  /** The success frame: the revision's result fields added to the revision-neutral serialized result. */
  result(id: RpcId, method: string, resultJson: string): string;
  /** The answer to a method the revision does not define. */
  notFound(id: RpcId, method: string): Response;
}

/** The caller as the runtime-auth middleware bound it. */
export interface Caller {
  readonly principal: Principal;
  /** Aborted when the authorization is revoked or the daemon stops. */
  readonly signal: AbortSignal;
}

/**
 * The one context every method handler gets, whatever the revision: the
 * request (headers, trace context, its close signal), the JSON-RPC id and
 * params, the caller, and the codec that encodes the answer. One object per
 * request; the thread and the tool's context are read only by tools/call.
 */
export class McpCall {
  constructor(
    readonly c: Context,
    readonly id: RpcId,
    readonly method: string,
    readonly params: Record<string, unknown>,
    readonly codec: RevisionCodec,
    readonly caller: Caller,
  ) {}

  /** A success frame in this request's revision. */
  ok(resultJson: string): string {
    return this.codec.result(this.id, this.method, resultJson);
  }

  fail(code: number, message: string): string {
    return errorFrame(this.id, code, message);
  }

  /**
   * What a tool sees of this call: the binding, the revocation signal, the
   * thread the call names, and the request's own close signal (the caller
   * went away: a parked call is cancelled and its slot comes back).
   */
  toolContext(audit: AuditNote | undefined): CallContext {
    const { c, caller } = this;
    // Every field written, in one order: the tools read this object on every call, and one shape keeps those reads monomorphic.
    return {
      principal: caller.principal,
      threadId: callThreadId(this.params, c.req.header(THREAD_HEADER)),
      threadRole: undefined,
      signal: caller.signal,
      gone: () => c.req.raw.signal,
      audit,
    };
  }
}

/** A handler answers with a frame (sent through the result gate at 200) or with a response of its own (a stream). */
export type McpHandler = (call: McpCall) => string | Response | Promise<string | Response>;

/** One revision's codec with the handlers of the methods it defines. */
export interface BoundRevision {
  readonly codec: RevisionCodec;
  readonly handlers: ReadonlyMap<string, McpHandler>;
}

/**
 * Each revision's view of the one handler map, built at start-up (in the
 * codecs' order): a revision naming a method with no handler, or a handler
 * no revision serves, is a wiring mistake and fails here, not as -32601 later.
 */
export function bindRevisions(
  handlers: ReadonlyMap<string, McpHandler>,
  codecs: readonly RevisionCodec[],
): BoundRevision[] {
  const served = new Set<string>();
  const bound = codecs.map((codec) => {
    const view = new Map<string, McpHandler>();
    for (const method of codec.methods) {
      const handler = handlers.get(method);
      if (handler === undefined) throw new Error(`MCP method ${method} has no handler`);
      view.set(method, handler);
      served.add(method);
    }
    return { codec, handlers: view };
  });
  for (const method of handlers.keys()) {
    if (!served.has(method)) throw new Error(`MCP handler ${method} is served by no revision`);
  }
  return bound;
}

/**
 * The 2025 revisions. Nothing is read per request: the version was agreed
 * by initialize and is named by the MCP-Protocol-Version header, which the
 * transport checks for every message of these revisions (notifications
 * included); capabilities and client info come only with initialize, and a
 * stateless server keeps none of them. Results keep their plain shape.
 */
export function legacyCodec(answer: (frame: string) => Response): RevisionCodec {
  return {
    methods: new Set(['initialize', 'ping', 'tools/list', 'tools/call']),
    admit: () => null,
    result: (id, _method, resultJson) => resultFrame(id, resultJson),
    notFound: (id, method) =>
      answer(errorFrame(id, RPC.methodNotFound, `Method not found: ${method}`)),
  };
}
