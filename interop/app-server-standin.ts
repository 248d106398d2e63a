import { markerIn, responsesAside, start, text, type StandIn } from './model-standins.js';
import { recordOutputs, replyNext, type AskedCall } from './codex-threads.js';

/** What the app-server stand-in told each thread to call, and the answers it got back, by call id. */
export interface AppServerStandIn extends StandIn {
  /** `primary` or `child`, the tool asked for, and the output Codex returned (once it came). */
  readonly calls: AskedCall[];
}

const AGENTTEAM_NS = 'agentteam';

/**
 * The OpenAI Responses stand-in for the Codex app-server check. The primary
 * thread (prompt "Send interop-…") calls agentteam's `message_send` with the
 * marker, then delegates with Codex's own `spawn_agent` (multi-agent v2,
 * namespace `collaboration`); the spawned thread (its task says CHILDTASK)
 * tries `message_send` and then `message_history_read`. Which thread a
 * request is for is read from the request itself; every tool output is
 * recorded against the call that asked for it.
 */
export function startAppServerStandIn(): Promise<AppServerStandIn> {
  const calls: AppServerStandIn['calls'] = [];
  let n = 0;
  return start((path, body, res) => {
    if (responsesAside(path, res)) return;
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    recordOutputs(input, calls);
    const all = text(input);
    const child = /CHILDTASK/.test(all) && /NEW_TASK/.test(all) && !/Send interop-/.test(all);
    const marker = child ? undefined : markerIn(all);
    const done = new Set(
      input.filter((i) => i?.type === 'function_call').map((i) => `${i.namespace ?? ''}.${i.name}`),
    );
    const has = (t: string) =>
      (body?.tools ?? []).some(
        (x: any) =>
          x?.type === 'namespace' &&
          x?.name === AGENTTEAM_NS &&
          (x.tools ?? []).some((y: any) => y?.name === t),
      );
    let next: { namespace: string; name: string; args: unknown } | null = null;
    if (child) {
      if (!done.has(`${AGENTTEAM_NS}.message_send`) && has('message_send'))
        next = {
          namespace: AGENTTEAM_NS,
          name: 'message_send',
          args: { target: 'channel:interop', content: 'interop-child-send' },
        };
      else if (!done.has(`${AGENTTEAM_NS}.message_history_read`) && has('message_history_read'))
        next = {
          namespace: AGENTTEAM_NS,
          name: 'message_history_read',
          args: { target: 'channel:interop' },
        };
    } else if (marker) {
      if (!done.has(`${AGENTTEAM_NS}.message_send`) && has('message_send'))
        next = {
          namespace: AGENTTEAM_NS,
          name: 'message_send',
          args: { target: 'channel:interop', content: marker },
        };
      else if (
        !done.has('collaboration.spawn_agent') &&
        (body?.tools ?? []).some((x: any) => x?.name === 'collaboration')
      ) {
        next = {
          namespace: 'collaboration',
          name: 'spawn_agent',
          args: {
            task_name: 'reader',
            message: 'CHILDTASK: read channel:interop and report back',
            fork_turns: 'none',
          },
        };
      }
    }
    replyNext(res, body, { calls, tag: 'as', id: ++n, child }, next);
  }).then((s) => Object.assign(s, { calls }));
}
