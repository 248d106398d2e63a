import type { Hono } from 'hono';
import type { RuntimeEnv } from '../auth/principal.js';
import { defaultCatalog } from '../../catalog/catalog.js';
import { helpIndexOf, renderExecIndex } from '../../catalog/help.js';
import type { McpToolDescriptor } from '../../catalog/mcp-tool-descriptor.js';
import { wireTool } from '../../catalog/mcp-wire.js';
import { isRuntimeKind } from '../../catalog/runtimes.js';
import type { AnalysisTokens } from '../auth/analysis-token.js';
import { SERVER_INSTRUCTIONS, renderToolGuidance } from '../drivers/guidance.js';
import { toRuntimeName } from '../drivers/names.js';
import { ExecError } from '../errors/exec-error.js';
import { forbidden } from '../http/runtime-auth.js';
import { ANALYSIS_PATH } from '../http/paths.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';

/**
 * The token-analysis surface: the exact texts a runtime's context receives
 * from agentteam (the tools/list entries as that runtime names the tools, the
 * runtime guidance, the Exec index, the initialize instructions) and each
 * tool's own definition. Read-only; counting happens in the CLI.
 * The credential is a row of the operator API (answered by the handler this
 * returns); the surface route accepts only a token-analysis credential.
 */
export function registerTokenAnalysisRoutes(
  app: Hono<RuntimeEnv>,
  tokens: AnalysisTokens,
  inventory: readonly McpToolDescriptor[],
): Pick<OperatorHandlers, 'analysis.credential'> {
  app.get(ANALYSIS_PATH, async (c) => {
    const m = /^Bearer +(\S+) *$/i.exec(c.req.header('authorization') ?? '');
    if (!m || !(await tokens.verify(m[1]!))) return forbidden();
    const runtime = c.req.query('runtime') ?? 'generic';
    if (!isRuntimeKind(runtime))
      throw new ExecError('invalid_request', `unknown runtime "${runtime}"`);
    // Each definition is the tools/list entry (the wire form, catalog/mcp-wire.ts) under the name the runtime shows;
    // the CLI derives what the runtime's model is sent from it (lib/token-model-view.ts).
    const tools = inventory.map((t) => ({
      name: t.name,
      definition: JSON.stringify(wireTool(t, toRuntimeName(runtime, t.name))),
    }));
    return c.json({
      ok: true,
      data: {
        runtime,
        surfaces: {
          mcpInventory: `{"tools":[${tools.map((t) => t.definition).join(',')}]}`,
          guidance: renderToolGuidance(runtime, inventory),
          execIndex: renderExecIndex(helpIndexOf(defaultCatalog())),
          serverInstructions: SERVER_INSTRUCTIONS,
        },
        tools,
      },
    });
  });
  return { 'analysis.credential': () => tokens.issue() };
}
