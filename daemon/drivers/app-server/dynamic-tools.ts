import type { Authorization } from '../../auth/authorization.js';
import type { ToolHost } from '../../tools/contracts.js';
import { MCP_SERVER_NAME } from '../../../catalog/mcp-tools.js';

/**
 * agentteam's tools as the app server's dynamic tools: the inventory a
 * principal sees as one namespace of tool specs, and a tool's CallToolResult
 * as the dynamic tool answer (with whether the thread gate refused it).
 */

/** The namespace agentteam's dynamic tools live in (Codex reserves `mcp__*` for its MCP servers). */
export const DYNAMIC_NAMESPACE = MCP_SERVER_NAME;

/** The inventory tools/list serves this principal, as the app server's dynamic tool specs. */
export function dynamicTools(host: ToolHost, auth: Authorization): unknown[] {
  const listed = JSON.parse(host.listResultJson(auth.principal)) as {
    tools: { name: string; description?: string; inputSchema: unknown }[];
  };
  return [
    {
      type: 'namespace',
      name: DYNAMIC_NAMESPACE,
      description: 'AgentTeam: messages, memory and team knowledge of this agent.',
      tools: listed.tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description ?? t.name,
        inputSchema: t.inputSchema,
      })),
    },
  ];
}

/** A CallToolResult frame as the app server's dynamic tool answer. */
export function toDynamicResponse(resultJson: string): {
  contentItems: { type: 'inputText'; text: string }[];
  success: boolean;
} & {
  refused: boolean;
} {
  const r = JSON.parse(resultJson) as {
    content?: { type: string; text?: string }[];
    isError?: boolean;
  };
  const texts = (r.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text!);
  let refused = false;
  if (r.isError === true) {
    try {
      // The gate's refusals: a child or unknown thread, or a thread claimed against the attached one.
      const meta = (
        JSON.parse(texts[0] ?? '') as {
          error?: { metadata?: { childThread?: boolean; claimedThread?: string } };
        }
      ).error?.metadata;
      refused = meta?.childThread === true || typeof meta?.claimedThread === 'string';
    } catch {
      // a tool's own error text
    }
  }
  return {
    contentItems: texts.map((text) => ({ type: 'inputText', text })),
    success: r.isError !== true,
    refused,
  };
}
