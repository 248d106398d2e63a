/**
 * The stateless 2026-07-28 revision of MCP, served beside the 2025 revisions
 * on the same endpoints. A request is "modern" when its params carry
 * `_meta["io.modelcontextprotocol/protocolVersion"]` (or its
 * MCP-Protocol-Version header names this revision); everything it needs is
 * read from that one request, never from an earlier one.
 *
 * The rules and their sources (2026-07-28 specification):
 * - basic/index "_meta": protocolVersion and clientCapabilities are required
 *   on every request; a missing one is -32602 with HTTP 400.
 * - basic/versioning "Protocol Version Negotiation": an unsupported version
 *   is UnsupportedProtocolVersionError -32022 with data {supported, requested}.
 * - basic/transports/streamable-http "Request Metadata" and "Server
 *   Validation": MCP-Protocol-Version, Mcp-Method and (tools/call) Mcp-Name
 *   headers are required and must match the body (Base64 sentinel decoded);
 *   otherwise HeaderMismatch -32020 with HTTP 400. An unknown method is
 *   -32601 with HTTP 404.
 * - basic/index "Result responses": every result carries `resultType`;
 *   server/utilities/caching: tools/list and server/discover carry ttlMs and
 *   cacheScope.
 */

import type { Context } from 'hono';
import { RPC, errorFrame, reply, resultFrame, type RpcId } from './jsonrpc.js';
import type { RevisionCodec } from './codec.js';
import { ALL_PROTOCOL_VERSIONS, MODERN_VERSION } from '../../catalog/mcp-revisions.js';

/** How long a 2026 client may treat tools/list as fresh; change notices on subscriptions/listen cut it short. */
const TOOLS_LIST_TTL_MS = 10_000;

export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

const MODERN_ERRORS = {
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** Why a request is refused before dispatch: the HTTP status and the JSON-RPC error. */
interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The request's `_meta` protocol version, if it declares one (how a modern request is recognised). */
function declaredVersion(params: Record<string, unknown>): unknown {
  const meta = params._meta;
  return isObject(meta) ? meta[META_KEYS.protocolVersion] : undefined;
}

/** True when the request is to be served by the stateless revision. */
export function isModernRequest(
  method: string,
  params: Record<string, unknown>,
  versionHeader: string | undefined,
): boolean {
  if (method === 'initialize') return false;
  return declaredVersion(params) !== undefined || versionHeader === MODERN_VERSION;
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
// RFC 9110 field value: visible ASCII, space and tab.
const PLAIN_HEADER_VALUE = /^[\x20-\x7e\t]*$/;

/** Decodes an Mcp-Name style header value (plain ASCII or the Base64 sentinel); null when malformed. */
function decodeHeaderValue(raw: string): string | null {
  const m = SENTINEL.exec(raw);
  if (m) {
    const bytes = Buffer.from(m[1]!, 'base64');
    // Reject Base64 that does not round-trip (stray characters silently skipped by the decoder).
    if (bytes.toString('base64').replace(/=+$/, '') !== m[1]!.replace(/=+$/, '')) return null;
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    try {
      return text.decode(bytes);
    } catch {
      return null;
    }
  }
  return PLAIN_HEADER_VALUE.test(raw) ? raw : null;
}

/**
 * Validates one modern request before dispatch: its _meta, the supported
 * version, and the standard headers against the body. Null when it may be
 * served.
 */
function checkModernRequest(
  method: string,
  params: Record<string, unknown>,
  header: (name: string) => string | undefined,
  supported: readonly string[],
): Refusal | null {
  const meta = isObject(params._meta) ? params._meta : undefined;
  const version = meta?.[META_KEYS.protocolVersion];
  const caps = meta?.[META_KEYS.clientCapabilities];
  if (typeof version !== 'string' || version === '') {
    return {
      status: 400,
      code: -32602,
      message: `Invalid params: _meta["${META_KEYS.protocolVersion}"] is required and must be a string`,
    };
  }
  if (version !== MODERN_VERSION) {
    return {
      status: 400,
      code: MODERN_ERRORS.unsupportedProtocolVersion,
      message: 'Unsupported protocol version',
      data: { supported, requested: version },
    };
  }
  if (!isObject(caps)) {
    return {
      status: 400,
      code: -32602,
      message: `Invalid params: _meta["${META_KEYS.clientCapabilities}"] is required and must be an object`,
    };
  }
  const headerVersion = header('mcp-protocol-version');
  if (headerVersion === undefined) return mismatch('the MCP-Protocol-Version header is required');
  if (headerVersion !== version)
    return mismatch(
      `MCP-Protocol-Version header value '${clip(headerVersion)}' does not match the _meta protocol version '${version}'`,
    );
  return checkHeaderAgreement(method, params, header, true);
}

/**
 * Mcp-Method and (tools/call) Mcp-Name against the body. A modern request
 * must send them (`required`); any other request that sends them anyway is
 * held to them too, so a proxy routing by header and the daemon acting on
 * the body can never disagree about what ran. Null when they agree.
 */
export function checkHeaderAgreement(
  method: string,
  params: Record<string, unknown>,
  header: (name: string) => string | undefined,
  required: boolean,
): Refusal | null {
  const headerMethod = header('mcp-method');
  if (headerMethod === undefined && required) return mismatch('the Mcp-Method header is required');
  if (headerMethod !== undefined && headerMethod !== method)
    return mismatch(
      `Mcp-Method header value '${clip(headerMethod)}' does not match body value '${clip(method)}'`,
    );
  if (method === 'tools/call') {
    const rawName = header('mcp-name');
    if (rawName === undefined)
      return required ? mismatch('the Mcp-Name header is required for tools/call') : null;
    const name = decodeHeaderValue(rawName);
    if (name === null) return mismatch('the Mcp-Name header value is malformed');
    if (name !== params.name)
      return mismatch(
        `Mcp-Name header value '${clip(name)}' does not match body value '${clip(String(params.name))}'`,
      );
  }
  return null;
}

function mismatch(what: string): Refusal {
  return { status: 400, code: MODERN_ERRORS.headerMismatch, message: `Header mismatch: ${what}` };
}

/** Echoed values stay short so an error frame stays small whatever the client sent. */
function clip(s: string): string {
  return s.length > 128 ? `${s.slice(0, 128)}…` : s;
}

/**
 * Adds the revision's result fields to an already serialized result object
 * (`{...}`), so cached results are spliced rather than re-serialized.
 */
function withResultFields(resultJson: string, extra: string): string {
  const body = resultJson.trimEnd();
  if (!body.endsWith('}')) throw new Error('result is not a JSON object');
  const inner = body.slice(0, -1).trimEnd();
  return inner.endsWith('{') ? `${inner}${extra}}` : `${inner},${extra}}`;
}

/** Results a client may cache (server/utilities/caching): they carry ttlMs and cacheScope. */
const CACHEABLE = new Set(['tools/list', 'server/discover']);

/**
 * The 2026-07-28 codec: each request declares its version and client
 * capabilities in its own `_meta` and repeats them in headers
 * (checkModernRequest); every result carries `resultType` and the server's
 * identity, cacheable ones the cache hints. `subscriptions/listen` answers
 * with its own stream (listen.ts), so only its refusals pass through here.
 */
export function modernCodec(serverInfo: Readonly<Record<string, unknown>>): RevisionCodec {
  const serverMeta = `"_meta":${JSON.stringify({ [META_KEYS.serverInfo]: serverInfo })}`;
  const completeFields = `"resultType":"complete",${serverMeta}`;
  const cacheFields = `"resultType":"complete","ttlMs":${TOOLS_LIST_TTL_MS},"cacheScope":"private",${serverMeta}`;
  // A cacheable result is stable between changes (the inventory per deny-set, discover): splice it once.
  const spliced = new Map<string, string>();
  return {
    methods: new Set(['server/discover', 'tools/list', 'tools/call', 'subscriptions/listen']),
    admit(c: Context, id: RpcId, method: string, params: Record<string, unknown>) {
      const check = checkModernRequest(
        method,
        params,
        (n) => c.req.header(n),
        ALL_PROTOCOL_VERSIONS,
      );
      return check && reply(check.status, errorFrame(id, check.code, check.message, check.data));
    },
    result(id, method, resultJson) {
      if (!CACHEABLE.has(method))
        return resultFrame(id, withResultFields(resultJson, completeFields));
      let json = spliced.get(resultJson);
      if (json === undefined) {
        if (spliced.size >= 64) spliced.clear(); // one entry per deny-set: old ones just go
        json = withResultFields(resultJson, cacheFields);
        spliced.set(resultJson, json);
      }
      return resultFrame(id, json);
    },
    notFound: (id, method) =>
      reply(404, errorFrame(id, RPC.methodNotFound, `Method not found: ${method}`)),
  };
}
