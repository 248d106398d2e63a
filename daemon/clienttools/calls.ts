import type { Clock } from '../../lib/clock.js';
import type { DaemonEvent } from '../events/event.js';
import { ExecError } from '../errors/exec-error.js';
import type { CallContext } from '../tools/registry.js';
import { inSpan, traceMeta } from '../telemetry/tracing.js';
import type { Groups } from './groups.js';
import {
  agentKeyOf,
  newRequestId,
  requestView,
  whenAborted,
  type Pending,
  type PendingCalls,
} from './requests.js';
import { admitStdioCall } from './stdio-calls.js';
import type { CallOutcome, Delegation } from './types.js';
import { timeoutText } from './wire-spelling.js';

/**
 * An agent's call of a client tool, from its admission to its parking:
 * refused at once when no app offers the tool, the agent already stopped,
 * the group serves another server, or a stdio child's wire bounds say so;
 * otherwise parked with its one deadline and the agent's abort watched, and
 * published to the apps that may serve it. It settles when the app answers,
 * the deadline passes, its app goes away, or the agent stops.
 */

export interface CallDeps {
  readonly clock: Clock;
  readonly groups: Groups;
  readonly pending: PendingCalls;
  readonly publish: (event: DaemonEvent) => void;
}

export function parkCall(
  d: CallDeps,
  name: string,
  args: Record<string, unknown>,
  ctx: CallContext,
  delegation: Delegation | null,
): Promise<CallOutcome> {
  const found = d.groups.find(name);
  if (!found)
    return Promise.resolve({
      ok: false,
      code: 'no_client',
      message: `no connected app offers tool "${name}"`,
    });
  // The agent's runtime ends (revocation), or the agent stops waiting (its request closes).
  const gone = ctx.gone?.();
  if (ctx.signal.aborted || gone?.aborted)
    return Promise.resolve({ ok: false, code: 'cancelled', message: 'the agent stopped' });
  const group = found.group;
  let call: Pending['call'];
  if (group.serverId !== null && group.serverId !== ctx.principal.serverId) {
    return Promise.resolve({
      ok: false,
      code: 'no_client',
      message: `the app offers "${name}" to agents of server ${group.serverId} only`,
    });
  }
  if (group.stdio) {
    let held = 0;
    for (const q of d.pending.values()) if (q.group === group.name) held++;
    const admitted = admitStdioCall(found.tool, args, ctx, delegation, held);
    if (!admitted.ok) return Promise.resolve(admitted.outcome);
    call = admitted.call;
  }
  // A producer span for the wait on the app; its context travels in the request as _meta.
  return inSpan(
    `client_tool ${name}`,
    { 'gen_ai.tool.name': name, 'agentteam.client_tools.group': group.name },
    () =>
      new Promise<CallOutcome>((resolve) => {
        const id = newRequestId();
        const onAbort = () => {
          const p = d.pending.get(id);
          const why =
            ctx.signal.reason instanceof ExecError
              ? ctx.signal.reason.extra.metadata?.reason
              : undefined;
          if (p && why === 'shutdown')
            d.pending.finish(
              p,
              { ok: false, code: 'cancelled', message: 'the daemon is stopping' },
              'shutdown',
            );
          // A runtime that ended is the run finishing; an agent that only stopped waiting cancelled its call.
          else if (p)
            d.pending.finish(
              p,
              { ok: false, code: 'cancelled', message: 'the agent stopped' },
              'agent_stopped',
              ctx.signal.aborted ? 'run_finished' : 'cancelled',
            );
        };
        const unwatch = whenAborted(ctx.signal, onAbort);
        const unwatchGone = gone ? whenAborted(gone, onAbort) : undefined;
        const p: Pending = {
          id,
          group: group.name,
          tool: found.tool,
          args,
          ctx,
          agentKey: agentKeyOf(ctx),
          createdAt: d.clock.now(),
          call,
          meta: traceMeta(),
          // A stdio child is the only one who can serve its group: the call is its own from the start.
          claimant: group.stdio ? [...group.providers][0]! : null,
          timer: null,
          settle: resolve,
          unlisten: () => {
            unwatch();
            unwatchGone?.();
          },
        };
        d.pending.add(p);
        // The deadline is absolute from here, before publishing: delivery, claim and execution all count.
        const ms = found.tool.timeoutMs;
        if (ms !== null) {
          const said = timeoutText(found.tool);
          p.timer = d.clock.setTimeout(() => {
            d.pending.finish(
              p,
              { ok: false, code: 'timeout', message: `the app did not answer within ${said}` },
              'timeout',
            );
          }, ms);
          p.timer.unref?.();
        }
        const view = requestView(p);
        d.publish({
          type: 'client_tool.request',
          data: view as unknown as Record<string, unknown>,
          redacted: { request_id: id },
          audience: audienceOf(d.groups, p),
        });
      }),
    'producer',
  );
}

/** Who may see a request in full: its group's owner for that agent, else every provider of the group. */
export function audienceOf(groups: Groups, p: Pending): ReadonlySet<string> {
  const g = groups.get(p.group);
  if (!g) return new Set();
  const owner = p.claimant ?? g.owners.get(p.agentKey);
  return owner ? new Set([owner]) : new Set(g.providers);
}
