import type { Context } from 'hono';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { ExecError } from '../errors.js';
import { RPC, classify, errorFrame, resultFrame, type RpcId } from './jsonrpc.js';
import type { ToolHost } from '../tools/contracts.js';
import type { CallContext } from '../tools/registry.js';
import { THREAD_HEADER, callThreadId } from '../http/child-gate.js';
import type { Principal } from '../http/principal.js';
import type { Clock } from '../../lib/clock.js';
import type { ToolChangeFeed } from '../tools/notify.js';
import { ListenStreams } from './listen.js';
import { socketOf, type LongLivedStreams } from '../http/stream-budget.js';
import { auditMcp, type AuditTrail } from '../audit/hooks.js';
import { META_KEYS, MODERN_VERSION, checkHeaderAgreement, checkModernRequest, isModernRequest, withResultFields } from './modern.js';
import { noteToolCall, observeMcp } from '../telemetry/observe.js';

/** The initialize-based revisions, newest first: an unknown requested revision is answered with the first one. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
/** Every revision served on the endpoint, the stateless one first (what server/discover and -32022 list). */
export const ALL_PROTOCOL_VERSIONS = [MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS] as const;
/** How long a 2026 client may treat tools/list as fresh; change notices on subscriptions/listen cut it short. */
export const TOOLS_LIST_TTL_MS = 10_000;

export interface McpProtocolOptions {
  readonly host: ToolHost;
  /** Reads the request body under the route's size and time limits; throws ExecError. */
  readonly readBody: (c: Context) => Promise<string>;
  /** The caller's binding and cancellation signal (set by the runtime-auth middleware). */
  readonly caller: (c: Context) => { principal: Principal; signal: AbortSignal };
  readonly serverVersion: string;
  readonly instructions?: string;
  readonly clock: Clock;
  /** Coalesced tool-list changes, for subscriptions/listen; without it the list is announced as fixed. */
  readonly changes?: ToolChangeFeed;
  /** GET with Accept: text/event-stream: the 2025 server-to-client notification stream (tools/list_changed). */
  readonly openStream?: (c: Context) => Response;
  /** Builds the response of an answered request (the result gate: screens the frame once, as a string). */
  readonly respond?: (status: number, body: string) => Response;
  /** The daemon-wide long-lived stream budget the listen streams count against. */
  readonly streams?: LongLivedStreams;
  /** The audit trail: one record per tools/call (null or absent: off). */
  readonly audit?: AuditTrail | null;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function reply(status: number, body: string | null, extra: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: body === null ? extra : { ...JSON_HEADERS, ...extra } });
}

/**
 * One MCP Streamable HTTP endpoint, stateless, JSON responses only. Order:
 * transport checks (method, protocol-version header, content type; Host and
 * Origin were checked for every route by daemon/http/host-origin.ts),
 * body, JSON-RPC framing, then dispatch by method.
 */
export function createMcpProtocol(opts: McpProtocolOptions): (c: Context) => Promise<Response> {
  const supported = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);
  const serverInfo = { name: 'agentteam', title: 'AgentTeam', version: opts.serverVersion };

  function initializeResult(params: Record<string, unknown>): string {
    const requested = params.protocolVersion;
    const protocolVersion = typeof requested === 'string' && supported.has(requested) ? requested : SUPPORTED_PROTOCOL_VERSIONS[0];
    const result: Record<string, unknown> = { protocolVersion, capabilities: { tools: { listChanged: opts.openStream !== undefined } }, serverInfo };
    if (opts.instructions !== undefined) result.instructions = opts.instructions;
    return JSON.stringify(result);
  }

  /**
   * The context of one tools/call, the same on every revision: the caller's
   * binding, the authorization's revocation signal, the thread, and the
   * request's own close signal (the caller went away: the app is told and the
   * call's slot comes back, whatever the tool's timeout).
   */
  function callContext(c: Context, params: Record<string, unknown>): CallContext {
    const { principal, signal } = opts.caller(c);
    return { principal, signal, threadId: callThreadId(params, c.req.header(THREAD_HEADER)), gone: () => c.req.raw.signal };
  }

  async function dispatch(c: Context, id: RpcId, method: string, params: Record<string, unknown>): Promise<string> {
    switch (method) {
      case 'initialize':
        return resultFrame(id, initializeResult(params));
      case 'ping':
        return resultFrame(id, '{}');
      case 'tools/list':
        return resultFrame(id, opts.host.listResultJson(opts.caller(c).principal));
      case 'tools/call': {
        const out = await auditMcp(opts.audit ?? null, c, params, callContext(c, params), (ctx) => opts.host.call(params.name, params.arguments, ctx));
        noteToolCall(c, out);
        return out.ok ? resultFrame(id, out.resultJson) : errorFrame(id, out.code, out.message);
      }
      default:
        return errorFrame(id, RPC.methodNotFound, `Method not found: ${method}`);
    }
  }

  // ---- 2026-07-28: stateless, everything read from the request's own _meta ----
  const listens = new ListenStreams(opts.streams);
  const serverMeta = `"_meta":${JSON.stringify({ [META_KEYS.serverInfo]: serverInfo })}`;
  const completeFields = `"resultType":"complete",${serverMeta}`;
  const cacheFields = `"resultType":"complete","ttlMs":${TOOLS_LIST_TTL_MS},"cacheScope":"private",${serverMeta}`;
  const discoverJson = JSON.stringify({
    resultType: 'complete',
    supportedVersions: ALL_PROTOCOL_VERSIONS,
    capabilities: { tools: { listChanged: opts.changes !== undefined } },
    serverInfo,
    ...(opts.instructions !== undefined ? { instructions: opts.instructions } : {}),
    ttlMs: TOOLS_LIST_TTL_MS,
    cacheScope: 'private',
    _meta: { [META_KEYS.serverInfo]: serverInfo },
  });
  // The inventory's serialized list is stable between changes: splice the revision's fields once per list.
  const modernLists = new Map<string, string>();
  const neverChanges: ToolChangeFeed = { subscribe: () => () => undefined };

  /** An answered request: through the result gate's string screen when given, else as is. */
  const answer = (frame: string): Response => (opts.respond ? opts.respond(200, frame) : reply(200, frame));

  async function modern(c: Context, id: RpcId, method: string, params: Record<string, unknown>): Promise<Response> {
    const check = checkModernRequest(method, params, (n) => c.req.header(n), ALL_PROTOCOL_VERSIONS);
    if (!check.ok) return reply(check.status, errorFrame(id, check.code, check.message, check.data));
    switch (method) {
      case 'server/discover':
        return answer(resultFrame(id, discoverJson));
      case 'tools/list': {
        const listJson = opts.host.listResultJson(opts.caller(c).principal);
        let json = modernLists.get(listJson);
        if (json === undefined) {
          if (modernLists.size >= 64) modernLists.clear(); // one entry per deny-set and revision: old ones just go
          json = withResultFields(listJson, cacheFields);
          modernLists.set(listJson, json);
        }
        return answer(resultFrame(id, json));
      }
      case 'tools/call': {
        const out = await auditMcp(opts.audit ?? null, c, params, callContext(c, params), (ctx) => opts.host.call(params.name, params.arguments, ctx));
        noteToolCall(c, out);
        return answer(out.ok ? resultFrame(id, withResultFields(out.resultJson, completeFields)) : errorFrame(id, out.code, out.message));
      }
      case 'subscriptions/listen': {
        const { principal, signal } = opts.caller(c);
        const started = listens.start({ id, params, feed: opts.changes ?? neverChanges, signal, authorizationId: principal.authorizationId, clock: opts.clock, socket: socketOf(c) });
        return started.ok ? started.response : reply(started.status, errorFrame(id, started.code, started.message));
      }
      default:
        return reply(404, errorFrame(id, RPC.methodNotFound, `Method not found: ${method}`));
    }
  }

  return async function handle(c: Context): Promise<Response> {
    const stream = c.req.method === 'GET' && opts.openStream !== undefined && (c.req.header('accept') ?? '').includes('text/event-stream');
    if (c.req.method !== 'POST' && !stream) {
      const allow = opts.openStream ? 'GET, POST' : 'POST';
      return reply(405, errorFrame(null, RPC.invalidRequest, `Method not allowed: this endpoint accepts ${allow}${opts.openStream ? ' (GET with Accept: text/event-stream)' : ' only'}`), { allow });
    }
    if (stream) {
      // The GET stream exists only in the 2025 revisions (2026-07-28 has subscriptions/listen instead).
      const version = c.req.header('mcp-protocol-version');
      if (version !== undefined && !supported.has(version)) {
        return reply(400, errorFrame(null, RPC.invalidRequest, `Bad Request: the GET stream is not part of MCP-Protocol-Version ${version}; supported for GET: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`));
      }
      return opts.openStream!(c);
    }
    const type = c.req.header('content-type');
    if (type === undefined || !type.toLowerCase().startsWith('application/json')) {
      return reply(415, errorFrame(null, RPC.invalidRequest, 'Unsupported Media Type: Content-Type must be application/json'));
    }
    let text: string;
    try {
      text = await opts.readBody(c);
    } catch (err) {
      const code = err instanceof ExecError ? err.code : 'internal';
      const msg = err instanceof ExecError ? err.message : 'internal error';
      return reply(ERROR_TABLE[code].http, errorFrame(null, ERROR_TABLE[code].jsonrpc, msg));
    }
    let decoded: unknown;
    try {
      decoded = JSON.parse(text);
    } catch {
      return reply(400, errorFrame(null, RPC.parseError, 'Parse error: the body is not valid JSON'));
    }
    if (Array.isArray(decoded)) {
      return reply(400, errorFrame(null, RPC.invalidRequest, 'Invalid Request: JSON-RPC batches are not supported'));
    }
    const msg = classify(decoded);
    const version = c.req.header('mcp-protocol-version');
    if (msg.kind === 'request' && isModernRequest(msg.method, msg.params, version)) {
      try {
        return await observeMcp(c, msg.id, msg.method, msg.params, () => modern(c, msg.id, msg.method, msg.params));
      } catch {
        return reply(200, errorFrame(msg.id, RPC.internalError, 'Internal error'));
      }
    }
    if (version !== undefined && version !== MODERN_VERSION && !supported.has(version)) {
      return reply(400, errorFrame(null, RPC.invalidRequest, `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${ALL_PROTOCOL_VERSIONS.join(', ')}`));
    }
    // Mcp-Method / Mcp-Name, when sent, must match the body on every revision.
    if (msg.kind === 'request') {
      const agreement = checkHeaderAgreement(msg.method, msg.params, (n) => c.req.header(n), false);
      if (agreement) return reply(agreement.status, errorFrame(msg.id, agreement.code, agreement.message));
    }
    switch (msg.kind) {
      case 'invalid':
        return reply(400, errorFrame(msg.id, RPC.invalidRequest, `Invalid Request: ${msg.message}`));
      case 'notification':
      case 'response':
        return reply(202, null);
      case 'request':
        try {
          const frame = await observeMcp(c, msg.id, msg.method, msg.params, () => dispatch(c, msg.id, msg.method, msg.params));
          return answer(frame);
        } catch {
          return reply(200, errorFrame(msg.id, RPC.internalError, 'Internal error'));
        }
    }
  };
}
