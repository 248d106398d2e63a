import type { NativeKind } from '../profile/approvals.js';

/** A runtime's own permission request, as its driver (or hook) hands it to the daemon. */
export interface NativeAsk {
  readonly serverId: string;
  readonly agent: string;
  /** The runtime kind (`codex-app-server`, `claude`). */
  readonly runtime: string;
  /** The runtime's authorization: a turn-wide approval holds for this lease only. */
  readonly leaseId: string;
  readonly turnId: string | null;
  readonly threadId: string | null;
  readonly subagentId: string | null;
  /** Asked by a delegated child thread or subagent, not the agent's primary thread. */
  readonly delegated: boolean;
  readonly kind: NativeKind;
  readonly command?: string;
  readonly cwd?: string;
  readonly diff?: string;
  readonly toolName?: string;
  readonly toolInput?: unknown;
  /** The runtime's own words on why it asks. */
  readonly reason?: string;
}

/** What the runtime is told: approved (this once, or for the rest of the turn), or why not. */
export type NativeAnswer =
  | { readonly decision: 'approved'; readonly scope: 'once' | 'turn'; readonly id: string }
  | {
      readonly decision: 'denied' | 'expired' | 'cancelled';
      readonly reason: string;
      readonly id: string;
    };
