/**
 * Every path of the runtime route families, written once: the app mounts
 * the runtime-auth middleware on these very values, the Exec and MCP routes
 * register their handlers on them, and the daemon builds the URLs it hands
 * to runtimes from the same bases. A path can then never be guarded under
 * one spelling and served under another.
 */

/** Exec: one authorization's base; the catalog and every action live under it. */
export const EXEC_BASE = '/api/internal/exec/servers/:serverId/agents/:agentId';
/** Everything under the Exec base: what runtime auth guards. */
const EXEC_SCOPE = `${EXEC_BASE}/*`;
export const EXEC_CATALOG_PATH = `${EXEC_BASE}/catalog`;
export const EXEC_ACTION_PATH = `${EXEC_BASE}/:domain/:action`;
/** A Claude runtime's permission prompt, filed in the approval inbox by `agentteam approval hook`. */
export const NATIVE_APPROVAL_PATH = `${EXEC_BASE}/native-approval`;

/** MCP: the canonical endpoint, then the legacy alias; one handler serves both. */
const MCP_PATH = '/api/internal/mcp/servers/:serverId/agents/:agentId';
const MCP_LEGACY_PATH = '/mcp/agentteam/:serverId/:agentId';
export const MCP_PATHS: readonly string[] = [MCP_PATH, MCP_LEGACY_PATH];
/** The prefixes of the MCP family, for refusals shaped as JSON-RPC. */
export const MCP_PREFIXES: readonly string[] = ['/api/internal/mcp/', '/mcp/'];

/** The literal starts of the runtime families' paths, each given its own short route table (prefix-router.ts). */
export const RUNTIME_PREFIXES: readonly string[] = [
  EXEC_BASE.slice(0, EXEC_BASE.indexOf(':')),
  ...MCP_PATHS.map((p) => p.slice(0, p.indexOf(':'))),
];

/** The paths the runtime-auth middleware is mounted on (credential, binding, admission). */
export const RUNTIME_AUTH_PATHS: readonly string[] = [EXEC_SCOPE, ...MCP_PATHS];

/** Token analysis: the surface a runtime's credential may read about itself. */
export const ANALYSIS_PATH = '/api/internal/token-analysis/surface';

/** The operator API: everything under it takes the operator bearer. */
export const OPERATOR_SCOPE = '/api/v1/*';

/** The URLs one runtime is given for its authorization. */
export function runtimeUrls(
  daemonUrl: string,
  serverId: string,
  agentId: string,
): { execBaseUrl: string; mcpUrl: string } {
  const fill = (path: string) =>
    daemonUrl +
    path
      .replace(':serverId', () => encodeURIComponent(serverId))
      .replace(':agentId', () => encodeURIComponent(agentId));
  return { execBaseUrl: fill(EXEC_BASE), mcpUrl: fill(MCP_PATH) };
}
