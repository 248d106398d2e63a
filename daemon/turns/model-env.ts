import type { AgentConfig } from '../profile/types.js';

/** The provider a Codex agent's `baseUrl` defines, on top of the user's own Codex configuration. */
const CODEX_PROVIDER = 'agentteam_profile';
/** Where each header value waits in the runtime's environment (`_0`, `_1`, …), named by the runtime's config. */
const HEADER_VAR = 'AGENTTEAM_MODEL_HEADER_';
/** An HTTP field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A value that would end a header line or the request head is no value. */
const BREAKS_LINE = /[\r\n\0]/;

/** A variable name OpenCode's `{env:…}` reference can spell. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const toml = (s: string) => JSON.stringify(s);

/** The profile's headers a request can carry: a name that is a token, a value on one line. */
function sendable(agent: AgentConfig): [string, string][] {
  return Object.entries(agent.headers).filter(
    ([name, value]) => TOKEN.test(name) && !BREAKS_LINE.test(value),
  );
}

/**
 * What the profile says about an agent's model (`model`, `baseUrl`,
 * `apiKeyEnv`, `headers`), in the words of its runtime, layered on the
 * user's own configuration: a field the profile leaves out changes nothing.
 * Header values are secrets: they reach the runtime only in its environment
 * (readable by the user alone), never on its command line or in a file.
 * Claude Code reads the endpoint, key and headers from its environment and
 * the model from `--model`; Codex gets `-c` overrides (a provider of its own
 * for the endpoint, whose key and headers it reads from the variables they
 * name); OpenCode gets `OPENCODE_CONFIG_CONTENT` naming the variables the
 * same way (`{env:…}`). Declared commands and `generic` get nothing: they
 * read the profile's settings however they like.
 */
export function modelSettings(
  agent: AgentConfig,
  inherited: NodeJS.ProcessEnv,
): { env: Record<string, string>; args: string[] } {
  const env: Record<string, string> = {};
  const args: string[] = [];
  if (agent.launch.command) return { env, args };
  const key = agent.apiKeyEnv ? inherited[agent.apiKeyEnv] : undefined;
  const headers = sendable(agent);
  /** The variable holding the value of header `i` (set here). */
  const headerVar = (i: number) => {
    env[`${HEADER_VAR}${i}`] = headers[i]![1];
    return `${HEADER_VAR}${i}`;
  };
  switch (agent.runtime) {
    case 'claude': {
      if (agent.baseUrl) env.ANTHROPIC_BASE_URL = agent.baseUrl;
      if (key) env.ANTHROPIC_API_KEY = key;
      if (agent.model) args.push('--model', agent.model);
      // One `Name: value` a line, after the user's own.
      const lines = headers.map(([name, value]) => `${name}: ${value}`);
      const own = inherited.ANTHROPIC_CUSTOM_HEADERS;
      if (lines.length > 0)
        env.ANTHROPIC_CUSTOM_HEADERS = [own, ...lines].filter(Boolean).join('\n');
      break;
    }
    case 'codex':
    case 'codex-app-server': {
      const c = (k: string, v: string) => args.push('-c', `${k}=${v}`);
      if (agent.model) c('model', toml(agent.model));
      if (agent.baseUrl) {
        const p = `model_providers.${CODEX_PROVIDER}`;
        c(`${p}.name`, toml(CODEX_PROVIDER));
        c(`${p}.base_url`, toml(agent.baseUrl));
        c(`${p}.wire_api`, toml('responses'));
        if (agent.apiKeyEnv) c(`${p}.env_key`, toml(agent.apiKeyEnv));
        // Header name -> the variable Codex reads its value from.
        if (headers.length > 0)
          c(
            `${p}.env_http_headers`,
            `{ ${headers.map(([name], i) => `${toml(name)} = ${toml(headerVar(i))}`).join(', ')} }`,
          );
        c('model_provider', toml(CODEX_PROVIDER));
      }
      break;
    }
    case 'opencode': {
      const content = opencodeConfig(agent, inherited.OPENCODE_CONFIG_CONTENT, headers, headerVar);
      if (content) env.OPENCODE_CONFIG_CONTENT = content;
      break;
    }
  }
  return { env, args };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * OpenCode's inline configuration for a `model` of the form
 * `provider/model`: the model, and that provider's options (`baseURL`,
 * `apiKey` and `headers` as `{env:…}` references, which OpenCode fills in
 * when it loads the configuration), merged into the user's own
 * `OPENCODE_CONFIG_CONTENT`. Without a provider in `model` there is no
 * provider to attach the rest to, and nothing is set.
 */
function opencodeConfig(
  agent: AgentConfig,
  own: string | undefined,
  headers: [string, string][],
  headerVar: (i: number) => string,
): string | null {
  const slash = agent.model?.indexOf('/') ?? -1;
  if (!agent.model || slash <= 0 || slash === agent.model.length - 1) return null;
  const providerId = agent.model.slice(0, slash);
  let base: Json = {};
  try {
    const parsed: unknown = own ? JSON.parse(own) : {};
    if (isObject(parsed)) base = parsed;
  } catch {
    // not JSON: OpenCode would refuse it too; ours replaces it
  }
  const providers = isObject(base.provider) ? base.provider : {};
  const provider = isObject(providers[providerId]) ? providers[providerId] : {};
  const options: Json = { ...(isObject(provider.options) ? provider.options : {}) };
  if (agent.baseUrl) options.baseURL = agent.baseUrl;
  if (agent.apiKeyEnv && ENV_NAME.test(agent.apiKeyEnv))
    options.apiKey = `{env:${agent.apiKeyEnv}}`;
  if (headers.length > 0)
    options.headers = {
      ...(isObject(options.headers) ? options.headers : {}),
      ...Object.fromEntries(headers.map(([name], i) => [name, `{env:${headerVar(i)}}`])),
    };
  // A model OpenCode's catalogue does not list (a gateway's own name) is declared under its provider.
  const models = isObject(provider.models) ? provider.models : {};
  const modelId = agent.model.slice(slash + 1);
  return JSON.stringify({
    ...base,
    model: agent.model,
    provider: {
      ...providers,
      [providerId]: {
        ...provider,
        options,
        models: { ...models, [modelId]: isObject(models[modelId]) ? models[modelId] : {} },
      },
    },
  });
}
