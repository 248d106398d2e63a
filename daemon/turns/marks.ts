import { channel } from 'node:diagnostics_channel';

/**
 * Where a turn's launch spends its time: each step publishes the turn id and
 * the wall clock in milliseconds (`performance.timeOrigin + performance.now()`,
 * sub-millisecond) on a diagnostics channel. Nothing is built while nobody
 * subscribes; `npm run bench -- turns` subscribes in the daemon through a
 * preload (bench/turns-marks.ts) to split post → runtime exec into its steps.
 */
const launches = channel('agentteam:turn-launch');

type LaunchStep = 'queued' | 'claimed' | 'lease' | 'leased' | 'prepared' | 'spawned';

export function markLaunch(turnId: string, step: LaunchStep): void {
  if (launches.hasSubscribers)
    launches.publish({ turnId, step, at: performance.timeOrigin + performance.now() });
}
