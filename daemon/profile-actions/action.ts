import type { ActionDescriptor, InputOf, OutputOf } from '../../catalog/descriptor.js';
import type { ProfileStore } from '../profile/profile-store.js';
import type { CursorCodec } from '../store/cursor.js';
import type { ServerApi } from '../store/server-api.js';

/** Who calls, as far as the profile's actions need it (the Exec principal has these fields). */
interface ProfileCaller {
  readonly serverId: string;
  readonly agentId: string;
  readonly sessionId: string | null;
  readonly runId: string | null;
  readonly workdir: string | null;
}

/** What an action backed by the local profile may touch (the Exec handler context satisfies it). */
export interface ProfileActionContext {
  readonly principal: ProfileCaller;
  /** The local profile (agents, teams) and its collection revision. */
  readonly profile: ProfileStore;
  /** Signs cursors of the daemon's own local collections. */
  readonly cursors: CursorCodec;
  /** Only for the idempotency record around a profile edit. */
  readonly server: Pick<ServerApi, 'idempotent'>;
}

/** One catalog action the daemon answers from its local profile, not the team server. */
export interface ProfileAction {
  readonly descriptor: ActionDescriptor;
  run(input: unknown, ctx: ProfileActionContext): Promise<unknown>;
}

/** Pairs a descriptor with its implementation; `input` and the result are the descriptor's types. */
export function profileAction<D extends ActionDescriptor>(
  descriptor: D,
  run: NoInfer<(input: InputOf<D>, ctx: ProfileActionContext) => Promise<OutputOf<D>>>,
): ProfileAction {
  return { descriptor, run: run as unknown as ProfileAction['run'] };
}
