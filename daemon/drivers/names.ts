import { MCP_SERVER_NAME } from '../../catalog/mcp-tools.js';

import type { RuntimeKind } from '../../catalog/runtimes.js';
export type { RuntimeKind } from '../../catalog/runtimes.js';

/** How a runtime prefixes MCP tools in the names its model sees. */
function prefixOf(runtime: RuntimeKind, server: string): string {
  switch (runtime) {
    case 'claude':
    case 'codex':
      return `mcp__${server}__`;
    case 'codex-app-server':
      // Dynamic tools in the namespace "agentteam" (Codex reserves `mcp__` namespaces for its MCP servers).
      return `${server}__`;
    case 'opencode':
      return `mcp_${server}_`;
    case 'generic':
      return '';
  }
}

/** Raw tool name (`message_send`) to the model-visible name (`mcp__agentteam__message_send`). */
export function toRuntimeName(
  runtime: RuntimeKind,
  tool: string,
  server: string = MCP_SERVER_NAME,
): string {
  return prefixOf(runtime, server) + tool;
}

/**
 * Model-visible name back to `{server, tool}`; null when the name is not one
 * of `server`'s tools in this runtime's convention. Product rules are written
 * against the raw name this returns.
 */
export function fromRuntimeName(
  runtime: RuntimeKind,
  visible: string,
  knownTools: readonly string[],
  server: string = MCP_SERVER_NAME,
): { server: string; tool: string } | null {
  const prefix = prefixOf(runtime, server);
  if (!visible.startsWith(prefix)) return null;
  const tool = visible.slice(prefix.length);
  return knownTools.includes(tool) ? { server, tool } : null;
}
