import type { AgentConfig } from '../profile/types.js';

/** The provider a Codex agent's `baseUrl` defines, on top of the user's own Codex configuration. */
const CODEX_PROVIDER = 'agentteam_profile';

const toml = (s: string) => JSON.stringify(s);

/**
 * What the profile says about an agent's model (`model`, `baseUrl`,
 * `apiKeyEnv`), in the words of its runtime, layered on the user's own
 * configuration: a field the profile leaves out changes nothing. Claude
 * Code reads the endpoint and key from its environment and the model from
 * `--model`; Codex gets `-c` overrides (a provider of its own for the
 * endpoint, whose key variable is the one `apiKeyEnv` names). Declared
 * commands and the other runtimes get nothing: they read the profile's
 * settings however they like.
 */
export function modelSettings(
  agent: AgentConfig,
  inherited: NodeJS.ProcessEnv,
): { env: Record<string, string>; args: string[] } {
  const env: Record<string, string> = {};
  const args: string[] = [];
  if (agent.launch.command) return { env, args };
  const key = agent.apiKeyEnv ? inherited[agent.apiKeyEnv] : undefined;
  switch (agent.runtime) {
    case 'claude':
      if (agent.baseUrl) env.ANTHROPIC_BASE_URL = agent.baseUrl;
      if (key) env.ANTHROPIC_API_KEY = key;
      if (agent.model) args.push('--model', agent.model);
      break;
    case 'codex':
    case 'codex-app-server': {
      const c = (k: string, v: string) => args.push('-c', `${k}=${toml(v)}`);
      if (agent.model) c('model', agent.model);
      if (agent.baseUrl) {
        const p = `model_providers.${CODEX_PROVIDER}`;
        c(`${p}.name`, CODEX_PROVIDER);
        c(`${p}.base_url`, agent.baseUrl);
        c(`${p}.wire_api`, 'responses');
        if (agent.apiKeyEnv) c(`${p}.env_key`, agent.apiKeyEnv);
        c('model_provider', CODEX_PROVIDER);
      }
      break;
    }
  }
  return { env, args };
}
