/**
 * Names the daemon owns (any case, any suffix), and the team store's URL: it
 * carries the database password, which no agent may read.
 */
const OWNED = /^agentteam_(exec|mcp)_|^agentteam_store_url$/i;

/** OpenTelemetry exporter headers (any signal) usually carry a collector's API key: the daemon's, not the agent's. */
const OTEL_CREDENTIALS = /^otel_exporter_otlp_(?:[a-z]+_)?headers$/i;

interface InjectedCredential {
  readonly execBaseUrl: string;
  readonly tokenFile: string;
  readonly mcpUrl: string;
}

/**
 * The runtime's environment: everything inherited except daemon-owned
 * Exec/MCP variables, AGENTTEAM_STORE_URL and OTEL_EXPORTER_OTLP_*HEADERS (compared case-insensitively, so a retired
 * AGENTTEAM_EXEC_TOKEN or a mixed-case override cannot slip through), then
 * the driver's additions, then the canonical three.
 */
export function buildRuntimeEnv(
  inherited: NodeJS.ProcessEnv,
  cred: InjectedCredential,
  driverEnv: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(inherited))
    if (!OWNED.test(k) && !OTEL_CREDENTIALS.test(k) && v !== undefined) env[k] = v;
  for (const [k, v] of Object.entries(driverEnv))
    if (!OWNED.test(k) && !OTEL_CREDENTIALS.test(k)) env[k] = v;
  env.AGENTTEAM_EXEC_BASE_URL = cred.execBaseUrl;
  env.AGENTTEAM_EXEC_TOKEN_FILE = cred.tokenFile;
  env.AGENTTEAM_MCP_URL = cred.mcpUrl;
  return env;
}
