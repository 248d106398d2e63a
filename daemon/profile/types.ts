import type { RuntimeKind } from '../../catalog/runtimes.js';

/** The local profile as stored in $AGENTTEAM_HOME/profile.json (already validated). */
type Runtime = RuntimeKind;

export interface AgentConfig {
  readonly id: string;
  readonly displayName: string;
  readonly runtime: Runtime;
  readonly model: string | null;
  readonly baseUrl: string | null;
  /** Header name -> value. Values are secrets and never leave the daemon. */
  readonly headers: Readonly<Record<string, string>>;
  readonly apiKeyEnv: string | null;
  readonly allowedPaths: readonly string[];
  /** Client tools or fallback tools (app_tools, app_call) this agent may neither see nor call. */
  readonly denyTools: readonly string[];
}

export interface TeamMember {
  readonly kind: 'agent' | 'human';
  readonly handle: string;
}

export interface TeamConfig {
  readonly teamId: string;
  readonly handle: string;
  readonly displayName: string;
  readonly members: readonly TeamMember[];
}

export interface Profile {
  readonly agents: readonly AgentConfig[];
  readonly teams: readonly TeamConfig[];
}

export const EMPTY_PROFILE: Profile = { agents: [], teams: [] };
