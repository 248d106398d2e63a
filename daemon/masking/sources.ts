import type { Profile } from '../profile/types.js';
import { SecretSet, type SecretSource } from './secrets.js';
import { isCredentialName } from './credential-names.js';

/**
 * The daemon's own credential-looking variables (credential-names.ts: matched
 * by name; the values are then masked wherever they occur, whatever they look
 * like); re-read when `refresh()` is called (daemon reload).
 */
function envSource(env: NodeJS.ProcessEnv = process.env): SecretSource & { refresh(): void } {
  let version = 0;
  let pairs: [string, string][] = [];
  const read = () => {
    pairs = Object.entries(env).filter(
      (e): e is [string, string] => typeof e[1] === 'string' && isCredentialName(e[0]),
    );
    version++;
  };
  read();
  return { version: () => version, entries: () => pairs, refresh: read };
}

/** Profile API keys (the values of the variables `apiKeyEnv` names) and every header value. */
export function profileSource(
  current: () => { profile: Profile; revision: string },
  env: NodeJS.ProcessEnv = process.env,
): SecretSource {
  let seen = '';
  let version = 0;
  let pairs: [string, string][] = [];
  const refresh = () => {
    const { profile, revision } = current();
    if (revision === seen) return;
    seen = revision;
    version++;
    pairs = [];
    for (const a of profile.agents) {
      for (const [name, value] of Object.entries(a.headers)) pairs.push([name, value]);
      const key = a.apiKeyEnv ? env[a.apiKeyEnv] : undefined;
      if (a.apiKeyEnv && typeof key === 'string') pairs.push([a.apiKeyEnv, key]);
    }
  };
  return {
    version: () => {
      refresh();
      return version;
    },
    entries: () => pairs,
  };
}

/** One fixed value (the operator token). */
export function fixedSource(name: string, value: string): SecretSource {
  const pairs: [string, string][] = [[name, value]];
  return { version: () => 0, entries: () => pairs };
}

/** Each runtime's live token generations (current and the previous one until it expires). */
export function tokenSource(store: {
  readonly tokensVersion: number;
  liveTokens(): Iterable<string>;
}): SecretSource {
  return {
    issued: true,
    version: () => store.tokensVersion,
    entries: function* () {
      for (const t of store.liveTokens()) yield ['AGENTTEAM_EXEC_TOKEN', t] as const;
    },
  };
}

/** The daemon's set of masked values, starting with its own credential variables (made before the log, which masks with it). */
export function daemonSecrets(env: NodeJS.ProcessEnv = process.env): SecretSet {
  const secrets = new SecretSet();
  secrets.add(envSource(env));
  return secrets;
}
