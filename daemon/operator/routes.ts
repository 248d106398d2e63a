import type { daemonReload, daemonStatus } from '../../catalog/operator/daemon.js';
import type { OperatorOutputOf } from '../../catalog/operator/route.js';
import type { OperatorRouteName } from '../../catalog/operator/table.js';
import type { OperatorHandlers } from '../http/operator-dispatch.js';
import { runtimeLeaseHandlers, type LeaseContext } from './runtimes.js';
import { runtimeView } from './runtime-list.js';

/** What the operator routes need from the running daemon. */
export interface OperatorContext extends LeaseContext {
  readonly status: () => Record<string, unknown>;
  /** Starts an orderly stop after the response has been sent. */
  readonly stop: (reason: string) => void;
  readonly reload: () => Promise<unknown>;
}

/** The rows the daemon core answers itself; the parts (daemon/parts.ts) answer the rest. */
export const CORE_OPERATOR_ROUTES = [
  'daemon.status',
  'daemon.stop',
  'daemon.reload',
  'runtimes.list',
  'runtimes.lease',
  'runtimes.revoke',
  'runtimes.rotate',
  'console.code',
] as const satisfies readonly OperatorRouteName[];
export type CoreOperatorRoute = (typeof CORE_OPERATOR_ROUTES)[number];

/** The daemon's own rows of the operator API (the bearer check is applied by the app before these run). */
export function coreOperatorHandlers(
  ctx: OperatorContext,
): Pick<OperatorHandlers, Exclude<CoreOperatorRoute, 'console.code'>> {
  return {
    // The daemon fills these from its parts; test/operator/operator-outputs.test.ts checks a real answer against the row.
    'daemon.status': () => ctx.status() as OperatorOutputOf<typeof daemonStatus>,
    'daemon.stop': () => {
      setImmediate(() => ctx.stop('operator'));
      return { stopping: true };
    },
    'daemon.reload': async () => (await ctx.reload()) as OperatorOutputOf<typeof daemonReload>,
    'runtimes.list': () => ({ runtimes: ctx.store.leases().map(runtimeView) }),
    ...runtimeLeaseHandlers(ctx),
  };
}
