import type { AgentConfig, Profile } from './types.js';

/** The model-visible projection of an agent: names and counts only, never secrets or paths. */
interface AgentView {
  id: string;
  displayName: string;
  runtime: AgentConfig['runtime'];
  model: string | null;
  baseUrl: string | null;
  headerNames: string[];
  apiKeyEnv: string | null;
  filesystem: { allowedPathCount: number };
  turns: { command: boolean; deadlineSeconds: number; maxRunning: number; queueLimit: number };
  teams: string[];
}

/**
 * Keeps scheme, host, port and path; drops userinfo, query and fragment. A
 * value that does not parse as an absolute http(s) URL is withheld entirely:
 * we cannot tell which part of it is safe.
 */
export function safeBaseUrl(raw: string | null): string | null {
  if (raw === null) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export function projectAgent(a: AgentConfig, profile: Profile): AgentView {
  const headerNames = [
    ...new Set(Object.keys(a.headers).map((n) => n.trim().toLowerCase())),
  ].sort();
  const teams = profile.teams
    .filter((t) => t.members.some((m) => m.kind === 'agent' && m.handle === a.id))
    .map((t) => t.teamId)
    .sort();
  return {
    id: a.id,
    displayName: a.displayName,
    runtime: a.runtime,
    model: a.model,
    baseUrl: safeBaseUrl(a.baseUrl),
    headerNames,
    apiKeyEnv: a.apiKeyEnv,
    filesystem: { allowedPathCount: a.allowedPaths.length },
    turns: {
      command: a.launch.command !== null,
      deadlineSeconds: a.launch.deadlineSeconds,
      maxRunning: a.launch.maxRunning,
      queueLimit: a.launch.queueLimit,
    },
    teams,
  };
}
