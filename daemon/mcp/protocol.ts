import type { Context } from 'hono';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { ExecError } from '../errors.js';
import { RPC, classify, errorFrame, resultFrame, type RpcId } from './jsonrpc.js';
import type { CallContext, ToolHost } from './tool-host.js';
import { THREAD_HEADER, callThreadId } from './child-gate.js';
import type { Principal } from '../http/principal.js';

/** Newest first: an unknown requested revision is answered with the first one. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

export interface McpProtocolOptions {
  readonly host: ToolHost;
  /** Reads the request body under the route's size and time limits; throws ExecError. */
  readonly readBody: (c: Context) => Promise<string>;
  /** The caller's binding and cancellation signal (set by the runtime-auth middleware). */
  readonly caller: (c: Context) => { principal: Principal; signal: AbortSignal };
  readonly serverVersion: string;
  readonly instructions?: string;
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
    const result: Record<string, unknown> = { protocolVersion, capabilities: { tools: { listChanged: false } }, serverInfo };
    if (opts.instructions !== undefined) result.instructions = opts.instructions;
    return JSON.stringify(result);
  }

  async function dispatch(c: Context, id: RpcId, method: string, params: Record<string, unknown>): Promise<string> {
    switch (method) {
      case 'initialize':
        return resultFrame(id, initializeResult(params));
      case 'ping':
        return resultFrame(id, '{}');
      case 'tools/list':
        return resultFrame(id, opts.host.listResultJson);
      case 'tools/call': {
        const { principal, signal } = opts.caller(c);
        const ctx: CallContext = { principal, signal, threadId: callThreadId(params, c.req.header(THREAD_HEADER)) };
        const out = await opts.host.call(params.name, params.arguments, ctx);
        return out.ok ? resultFrame(id, out.resultJson) : errorFrame(id, out.code, out.message);
      }
      default:
        return errorFrame(id, RPC.methodNotFound, `Method not found: ${method}`);
    }
  }

  return async function handle(c: Context): Promise<Response> {
    if (c.req.method !== 'POST') {
      return reply(405, errorFrame(null, RPC.invalidRequest, 'Method not allowed: this endpoint accepts POST only'), { allow: 'POST' });
    }
    const version = c.req.header('mcp-protocol-version');
    if (version !== undefined && !supported.has(version)) {
      return reply(400, errorFrame(null, RPC.invalidRequest, `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`));
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
    switch (msg.kind) {
      case 'invalid':
        return reply(400, errorFrame(msg.id, RPC.invalidRequest, `Invalid Request: ${msg.message}`));
      case 'notification':
      case 'response':
        return reply(202, null);
      case 'request':
        try {
          return reply(200, await dispatch(c, msg.id, msg.method, msg.params));
        } catch {
          return reply(200, errorFrame(msg.id, RPC.internalError, 'Internal error'));
        }
    }
  };
}
