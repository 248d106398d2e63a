import type { Context } from 'hono';
import { ERROR_TABLE } from '../../catalog/errors.js';
import { ExecError } from '../errors/exec-error.js';
import { RPC, classify, errorFrame, reply, type Incoming } from './jsonrpc.js';
import type { AuditTrail } from '../audit/trail.js';
import { observeMcp } from '../observe/mcp.js';
import { McpCall, bindRevisions, legacyCodec, type BoundRevision, type Caller } from './codec.js';
import {
  ALL_PROTOCOL_VERSIONS,
  MODERN_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../../catalog/mcp-revisions.js';
import { checkHeaderAgreement, isModernRequest, modernCodec } from './modern.js';
import { createMcpMethods, type McpMethodOptions } from './methods.js';

/** The handler map's options (methods.ts) but those the endpoint derives, and the transport's own. */
interface McpProtocolOptions extends Omit<McpMethodOptions, 'serverInfo' | 'listChangedStream'> {
  /** Reads the request body under the route's size and time limits; throws ExecError. */
  readonly readBody: (c: Context) => Promise<string>;
  /** The caller's binding and cancellation signal (set by the runtime-auth middleware). */
  readonly caller: (c: Context) => Caller;
  readonly serverVersion: string;
  /** GET with Accept: text/event-stream: the 2025 server-to-client notification stream (tools/list_changed). */
  readonly openStream?: (c: Context) => Response;
  /** Builds the response of an answered request (the result gate: screens the frame once, as a string). */
  readonly respond?: (status: number, body: string) => Response;
  /** The audit trail: one record per tools/call (null or absent: off). */
  readonly audit?: AuditTrail | null;
}

type RpcRequest = Extract<Incoming, { kind: 'request' }>;

/**
 * One MCP Streamable HTTP endpoint, stateless, JSON responses only. Order:
 * transport checks (method, protocol-version header, content type; Host and
 * Origin were checked for every route by daemon/http/host-origin.ts),
 * body, JSON-RPC framing, the revision's codec (codec.ts, modern.ts), then
 * one handler map for every revision (methods.ts).
 */
export function createMcpProtocol(opts: McpProtocolOptions): (c: Context) => Promise<Response> {
  const supported = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);
  const serverInfo = { name: 'agentteam', title: 'AgentTeam', version: opts.serverVersion };

  /** An answered request: through the result gate's string screen when given, else as is. */
  const answer = (frame: string): Response =>
    opts.respond ? opts.respond(200, frame) : reply(200, frame);
  const [legacy, modern] = bindRevisions(
    createMcpMethods({
      ...opts,
      serverInfo,
      listChangedStream: opts.openStream !== undefined,
    }),
    [legacyCodec(answer), modernCodec(serverInfo)],
  ) as [BoundRevision, BoundRevision];

  async function dispatch(
    c: Context,
    msg: RpcRequest,
    { codec, handlers }: BoundRevision,
  ): Promise<Response> {
    const refused = codec.admit(c, msg.id, msg.method, msg.params);
    if (refused !== null) return refused;
    const handler = handlers.get(msg.method);
    if (handler === undefined) return codec.notFound(msg.id, msg.method);
    const out = await handler(
      new McpCall(c, msg.id, msg.method, msg.params, codec, opts.caller(c)),
    );
    return typeof out === 'string' ? answer(out) : out;
  }

  async function serve(c: Context, msg: RpcRequest, revision: BoundRevision): Promise<Response> {
    try {
      return await observeMcp(c, opts.audit ?? null, msg.id, msg.method, msg.params, () =>
        dispatch(c, msg, revision),
      );
    } catch {
      return reply(200, errorFrame(msg.id, RPC.internalError, 'Internal error'));
    }
  }

  return async function handle(c: Context): Promise<Response> {
    const stream =
      c.req.method === 'GET' &&
      opts.openStream !== undefined &&
      (c.req.header('accept') ?? '').includes('text/event-stream');
    if (c.req.method !== 'POST' && !stream) {
      const allow = opts.openStream ? 'GET, POST' : 'POST';
      return reply(
        405,
        errorFrame(
          null,
          RPC.invalidRequest,
          `Method not allowed: this endpoint accepts ${allow}${opts.openStream ? ' (GET with Accept: text/event-stream)' : ' only'}`,
        ),
        { allow },
      );
    }
    if (stream) {
      // The GET stream exists only in the 2025 revisions (2026-07-28 has subscriptions/listen instead).
      const version = c.req.header('mcp-protocol-version');
      if (version !== undefined && !supported.has(version)) {
        return reply(
          400,
          errorFrame(
            null,
            RPC.invalidRequest,
            `Bad Request: the GET stream is not part of MCP-Protocol-Version ${version}; supported for GET: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
          ),
        );
      }
      return opts.openStream!(c);
    }
    const type = c.req.header('content-type');
    if (type === undefined || !type.toLowerCase().startsWith('application/json')) {
      return reply(
        415,
        errorFrame(
          null,
          RPC.invalidRequest,
          'Unsupported Media Type: Content-Type must be application/json',
        ),
      );
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
      return reply(
        400,
        errorFrame(null, RPC.parseError, 'Parse error: the body is not valid JSON'),
      );
    }
    if (Array.isArray(decoded)) {
      return reply(
        400,
        errorFrame(null, RPC.invalidRequest, 'Invalid Request: JSON-RPC batches are not supported'),
      );
    }
    const msg = classify(decoded);
    const version = c.req.header('mcp-protocol-version');
    if (msg.kind === 'request' && isModernRequest(msg.method, msg.params, version))
      return serve(c, msg, modern);
    // The 2025 revisions: the header names the version agreed by initialize, for every kind of message.
    if (version !== undefined && version !== MODERN_VERSION && !supported.has(version)) {
      return reply(
        400,
        errorFrame(
          null,
          RPC.invalidRequest,
          `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${ALL_PROTOCOL_VERSIONS.join(', ')}`,
        ),
      );
    }
    // Mcp-Method / Mcp-Name, when sent, must match the body on every revision.
    if (msg.kind === 'request') {
      const agreement = checkHeaderAgreement(msg.method, msg.params, (n) => c.req.header(n), false);
      if (agreement)
        return reply(agreement.status, errorFrame(msg.id, agreement.code, agreement.message));
    }
    switch (msg.kind) {
      case 'invalid':
        return reply(
          400,
          errorFrame(msg.id, RPC.invalidRequest, `Invalid Request: ${msg.message}`),
        );
      case 'notification':
      case 'response':
        return reply(202, null);
      case 'request':
        return serve(c, msg, legacy);
    }
  };
}
