import type { Principal } from '../auth/principal.js';
import type { NativeAsk } from './ask.js';

/** Who asks, as the daemon knows it from the runtime's authorization (never from what the runtime says of itself). */
export type AskOrigin = Pick<NativeAsk, 'serverId' | 'agent' | 'runtime' | 'leaseId' | 'turnId'>;

/**
 * The trusted half of a NativeAsk: server, agent, lease and turn from the
 * authorization the request came with. The driver or hook adds the thread
 * or subagent and what is asked.
 */
export function askOrigin(principal: Principal, runtime: string): AskOrigin {
  return {
    serverId: principal.serverId,
    agent: principal.agentId,
    runtime,
    leaseId: principal.authorizationId,
    turnId: principal.turnId ?? null,
  };
}

/** The daemon's tools as the policy reads them: a tool's trusted annotations, by name. */
interface ToolLookup {
  get(name: string): { readonly annotations: { readonly readOnlyHint?: boolean } } | undefined;
}

/** Runtimes show agentteam's tools as `mcp__agentteam__<tool>` (Claude, Codex) or `mcp_agentteam_<tool>` (OpenCode). */
const PREFIXES = ['mcp__agentteam__', 'mcp_agentteam_'];

/**
 * Whether the named tool only reads, by the annotation the daemon's registry
 * holds for it: only agentteam's own tools have annotations the daemon
 * trusts; any other name (a runtime's built-in tool, another MCP server's)
 * is not read-only as far as the policy is concerned.
 */
export function trustedReadOnly(tools: ToolLookup): (toolName: string) => boolean {
  return (toolName) => {
    const prefix = PREFIXES.find((p) => toolName.startsWith(p));
    if (prefix === undefined) return false;
    return tools.get(toolName.slice(prefix.length))?.annotations.readOnlyHint === true;
  };
}
