import type { Hono } from 'hono';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import type { Clock } from '../../lib/clock.js';
import type { RuntimeRequest } from '../auth/principal.js';
import { MCP_PATHS } from '../http/paths.js';
import { createMcpProtocol } from './protocol.js';
import { createToolHost } from './tool-host.js';
import type { HiddenTools, ToolHost } from '../tools/contracts.js';
import type { Principal } from '../auth/principal.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ListChangedNotifier } from '../tools/notify.js';
import type { LongLivedStreams } from '../http/stream-budget.js';
import { sharedBodyReader, sharedBoundary } from './boundary.js';
import { messageToolHandlers } from './message-tools.js';
import { SERVER_INSTRUCTIONS } from '../drivers/guidance.js';
import type { MessageApi } from '../store/messages.js';
import { knowledgeToolHandlers, type KnowledgeServices } from '../knowledge/tools.js';
import type { ResultGate } from '../results/gate.js';
import type { AuditTrail } from '../audit/trail.js';
import type { RuntimeEnv } from '../auth/principal.js';

const SERVER_VERSION = '0.1.0';

/**
 * What the MCP route family uses, and nothing else of the daemon: the
 * stores its built-in tools read and write, the result gate its results
 * and frames leave through, the tool registry, and the optional streams
 * and audit trail. The daemon passes these fields, never its whole
 * service bag.
 */
interface McpServices {
  readonly messages: MessageApi;
  readonly clock: Clock;
  readonly knowledge: KnowledgeServices;
  /** Results are bounded by the gate's JSON boundary; every answered frame passes its screen. */
  readonly gate: Pick<ResultGate, 'json' | 'respondScreened'>;
  /** The one registry of agent-callable tools; the built-ins are registered into it here. */
  readonly tools: ToolRegistry;
  /** What one agent may neither see nor call (profile denyTools). */
  readonly hiddenFor?: (principal: Principal) => HiddenTools | undefined;
  /** The tools/list_changed stream for GET on the endpoint. */
  readonly notifier?: ListChangedNotifier;
  /** The daemon-wide long-lived stream budget (2026 listen streams count against it). */
  readonly streams?: LongLivedStreams;
  /** One audit record per tools/call; null when the trail is off. */
  readonly audit?: AuditTrail | null;
}

/**
 * The agentteam MCP endpoint on its canonical route and the legacy alias:
 * one handler, one inventory. The runtime-auth middleware (mounted on both
 * paths by the app) has authenticated and bound the caller before this
 * handler is reached. Returns the tool host, for a driver that dispatches
 * calls in-process (Codex app-server).
 */
export function registerMcpRoutes(app: Hono<RuntimeEnv>, services: McpServices): ToolHost {
  const host = createToolHost(
    services.tools,
    MCP_TOOLS,
    { ...messageToolHandlers(services.messages), ...knowledgeToolHandlers(services.knowledge) },
    sharedBoundary(services.gate),
    services.hiddenFor,
  );
  const handle = createMcpProtocol({
    host,
    readBody: sharedBodyReader(services.clock),
    caller: (c) => c.get('runtime') as RuntimeRequest,
    serverVersion: SERVER_VERSION,
    instructions: SERVER_INSTRUCTIONS,
    clock: services.clock,
    ...(services.notifier
      ? { openStream: (c) => services.notifier!.open(c), changes: services.notifier }
      : {}),
    respond: (status, body) => services.gate.respondScreened(body, status),
    ...(services.streams ? { streams: services.streams } : {}),
    audit: services.audit ?? null,
  });
  for (const path of MCP_PATHS) app.all(path, handle);
  return host;
}
