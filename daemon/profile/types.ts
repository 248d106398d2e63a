import type { RuntimeKind } from '../../catalog/runtimes.js';
import type { AgentApprovals } from './approvals.js';

/** The local profile as stored in $AGENTTEAM_HOME/profile.json (already validated). */
type Runtime = RuntimeKind;

export interface AgentConfig {
  readonly id: string;
  readonly displayName: string;
  readonly runtime: Runtime;
  readonly model: string | null;
  readonly baseUrl: string | null;
  /** Header name -> value. Values are secrets: masked, never logged, given to the agent's own runtime only through its environment. */
  readonly headers: Readonly<Record<string, string>>;
  readonly apiKeyEnv: string | null;
  readonly allowedPaths: readonly string[];
  /** Client tools or fallback tools (app_tools, app_call) this agent may neither see nor call. */
  readonly denyTools: readonly string[];
  /** How the daemon starts this agent's runtime for a turn (profile/launch.ts). */
  readonly launch: AgentLaunch;
  /** What becomes of its runtime's own permission requests (profile/approvals.ts); the defaults when absent. */
  readonly approvals?: AgentApprovals;
}

/** An agent's launch settings; the defaults apply to what the profile leaves out. */
export interface AgentLaunch {
  /** A command runtime's whole argv (the runtime kind's binary is not used). */
  readonly command: readonly string[] | null;
  /** The runtime's executable when it is not on PATH (absolute). */
  readonly binary: string | null;
  /** Added after the runtime's own arguments. */
  readonly args: readonly string[];
  /** Where the runtime starts: within the allowed paths (default: the first of them). */
  readonly workdir: string | null;
  readonly deadlineSeconds: number;
  /** Turns of this agent that may run at once (on different targets). */
  readonly maxRunning: number;
  /** Queued turns beyond which a new one is recorded dropped (queue_full). */
  readonly queueLimit: number;
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
  /** The handle the console writes as (`human:<person>`); `operator` when the profile names none. */
  readonly person?: string;
}

export const EMPTY_PROFILE: Profile = { agents: [], teams: [] };
