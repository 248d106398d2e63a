import type { Context, Hono } from 'hono';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import type { RuntimeRequest } from '../http/principal.js';
import { ExecError } from '../errors.js';
import { createMcpProtocol } from './protocol.js';
import { createToolHost, type ResultBounder } from './tool-host.js';
import { messageToolHandlers } from './message-tools.js';
import { renderServerInstructions } from '../drivers/guidance.js';
import type { MessageServices } from './operator-routes.js';

export const MCP_ROUTE = '/api/internal/mcp/servers/:serverId/agents/:agentId';
export const MCP_LEGACY_ROUTE = '/mcp/agentteam/:serverId/:agentId';

export interface McpRouteOptions {
  readonly readBody?: (c: Context) => Promise<string>;
  readonly bound?: ResultBounder;
  readonly serverVersion?: string;
}

const BODY_LIMIT = 1024 * 1024;
const RESULT_LIMIT = 64 * 1024;

/** Stand-in until the shared body reader is wired: 1 MiB cap. */
async function readBodyCapped(c: Context): Promise<string> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > BODY_LIMIT) throw new ExecError('body_too_large', 'the request body exceeds 1 MiB');
  return text;
}

/** Stand-in until the shared result boundary is wired: 64 KiB on the success envelope, never truncated. */
function boundResult(toolName: string, data: unknown, readOnly: boolean): string {
  const json = JSON.stringify(data);
  if (json.length + 20 <= RESULT_LIMIT && Buffer.byteLength(json) + 20 <= RESULT_LIMIT) return json;
  throw new ExecError('result_budget_exceeded', `the ${toolName} result exceeds 64 KiB`, {
    hint: readOnly ? 'Ask for fewer items (a smaller limit) and continue with nextCursor.' : 'The change may have been applied; read it back before retrying.',
    ...(readOnly ? {} : { metadata: { mutation_applied: true } }),
  });
}

/**
 * The agentteam MCP endpoint on its canonical route and the legacy alias:
 * one handler, one inventory. The runtime-auth middleware (mounted on both
 * paths by the app) has authenticated and bound the caller before this
 * handler is reached.
 */
export function registerMcpRoutes(app: Hono<any>, services: MessageServices, opts: McpRouteOptions = {}): void {
  const host = createToolHost(MCP_TOOLS, messageToolHandlers(services.messages), opts.bound ?? boundResult);
  const handle = createMcpProtocol({
    host,
    readBody: opts.readBody ?? readBodyCapped,
    caller: (c) => c.get('runtime') as RuntimeRequest,
    serverVersion: opts.serverVersion ?? '0.1.0',
    instructions: renderServerInstructions(MCP_TOOLS),
  });
  app.all(MCP_ROUTE, handle);
  app.all(MCP_LEGACY_ROUTE, handle);
}
