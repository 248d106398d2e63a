import type { Clock } from '../../lib/clock.js';
import { errorFrame, reply } from './jsonrpc.js';
import type { ToolHost } from '../tools/contracts.js';
import type { ToolChangeFeed } from '../tools/notify.js';
import { ListenStreams } from './listen.js';
import { socketOf, type LongLivedStreams } from '../http/stream-budget.js';
import { observeToolCall } from '../observe/mcp.js';
import type { McpHandler } from './codec.js';
import { ALL_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../../catalog/mcp-revisions.js';

export interface McpMethodOptions {
  readonly host: ToolHost;
  readonly serverInfo: Readonly<Record<string, unknown>>;
  readonly instructions?: string;
  readonly clock: Clock;
  /** Coalesced tool-list changes, for subscriptions/listen; without it the list is announced as fixed. */
  readonly changes?: ToolChangeFeed;
  /** Whether the 2025 GET stream of tools/list_changed is served (initialize announces it). */
  readonly listChangedStream: boolean;
  /** The daemon-wide long-lived stream budget the listen streams count against. */
  readonly streams?: LongLivedStreams;
}

const neverChanges: ToolChangeFeed = { subscribe: () => () => undefined };

/**
 * The one handler map, keyed by method, for every revision: each handler
 * answers with the revision-neutral result and leaves the revision's fields
 * to the call's codec (`call.ok`). Which revision serves which method is the
 * codecs' `methods`. Notifications need no handler: the endpoint keeps no
 * state, so every one is accepted (202) by the transport.
 */
export function createMcpMethods(opts: McpMethodOptions): ReadonlyMap<string, McpHandler> {
  const supported = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);
  const { serverInfo, host } = opts;
  const withInstructions =
    opts.instructions !== undefined ? { instructions: opts.instructions } : {};
  // 2025: capabilities answer initialize; the version is echoed when supported, else the newest is offered.
  const initialize = (requested: unknown): string =>
    JSON.stringify({
      protocolVersion:
        typeof requested === 'string' && supported.has(requested)
          ? requested
          : SUPPORTED_PROTOCOL_VERSIONS[0],
      capabilities: { tools: { listChanged: opts.listChangedStream } },
      serverInfo,
      ...withInstructions,
    });
  // 2026: the same facts per request, and a serialized result that never changes.
  const discoverJson = JSON.stringify({
    supportedVersions: ALL_PROTOCOL_VERSIONS,
    capabilities: { tools: { listChanged: opts.changes !== undefined } },
    serverInfo,
    ...withInstructions,
  });
  const listens = new ListenStreams(opts.streams);

  return new Map<string, McpHandler>([
    ['initialize', (call) => call.ok(initialize(call.params.protocolVersion))],
    ['ping', (call) => call.ok('{}')],
    ['server/discover', (call) => call.ok(discoverJson)],
    ['tools/list', (call) => call.ok(host.listResultJson(call.caller.principal))],
    [
      'tools/call',
      async (call) => {
        const { c, params } = call;
        const out = await observeToolCall(
          c,
          params,
          (note) => call.toolContext(note),
          (ctx) => host.call(params.name, params.arguments, ctx),
        );
        return out.ok ? call.ok(out.resultJson) : call.fail(out.code, out.message);
      },
    ],
    [
      'subscriptions/listen',
      (call) => {
        const { principal, signal } = call.caller;
        const started = listens.start({
          id: call.id,
          params: call.params,
          feed: opts.changes ?? neverChanges,
          signal,
          authorizationId: principal.authorizationId,
          clock: opts.clock,
          socket: socketOf(call.c),
        });
        return started.ok
          ? started.response
          : reply(started.status, errorFrame(call.id, started.code, started.message));
      },
    ],
  ]);
}
