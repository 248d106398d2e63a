import { responsesAside, start, text, type StandIn } from './model-standins.js';
import { recordOutputs, replyNext, type AskedCall } from './codex-threads.js';

interface StdioTurnStandIn extends StandIn {
  readonly calls: AskedCall[];
  /** The `spawn_agent` parameters Codex offered the primary thread (its schema), once seen. */
  spawnSchema: unknown;
}

const NS = 'agentteam';
const TOOL = 'client__lookup_record';
/** The app's text names the record; the child's task the one it must fail to look up. */
const PRIMARY = /look up record (interop-stdio-\d+)/;
const CHILD_RECORD = 'interop-stdio-child';

/**
 * The OpenAI Responses stand-in for the `serve --stdio` turn case. The
 * primary thread (the app's turn text "look up record interop-stdio-…")
 * calls the app's client tool through agentteam's dynamic tools, then hands
 * an inspection to a child with Codex's own `spawn_agent`, as an `explorer`
 * when the pinned Codex offers that agent type. The child (its task says
 * CHILDTASK) calls the same client tool, which the daemon must refuse.
 * Every output is kept against the call that asked for it.
 */
export function startStdioTurnStandIn(): Promise<StdioTurnStandIn> {
  const calls: AskedCall[] = [];
  let n = 0;
  return start((path, body, res, standIn) => {
    if (responsesAside(path, res)) return;
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    recordOutputs(input, calls);
    const all = text(input);
    const record = PRIMARY.exec(all)?.[1];
    const child = /CHILDTASK/.test(all) && !record;
    const done = new Set(
      input.filter((i) => i?.type === 'function_call').map((i) => `${i.namespace ?? ''}.${i.name}`),
    );
    const tools: any[] = body?.tools ?? [];
    const offered = tools.some(
      (x) =>
        x?.type === 'namespace' && x?.name === NS && x.tools?.some((y: any) => y?.name === TOOL),
    );
    // Codex groups spawn_agent in a namespace (`multi_agent_v1`, or `collaboration` for v2).
    const collab = tools.find(
      (x) => x?.type === 'namespace' && x.tools?.some((y: any) => y?.name === 'spawn_agent'),
    );
    const spawn = collab?.tools.find((y: any) => y?.name === 'spawn_agent');
    const spawnNs: string = collab?.name ?? '';
    let next: { namespace: string; name: string; args: Record<string, unknown> } | null = null;
    if (child) {
      // Offered or not, the child tries the tool: the refusal must come from the daemon.
      if (!done.has(`${NS}.${TOOL}`))
        next = { namespace: NS, name: TOOL, args: { record_id: CHILD_RECORD } };
    } else if (record) {
      if (!done.has(`${NS}.${TOOL}`) && offered)
        next = { namespace: NS, name: TOOL, args: { record_id: record } };
      else if (done.has(`${NS}.${TOOL}`) && !done.has(`${spawnNs}.spawn_agent`) && spawn) {
        const schema = spawn.parameters ?? {};
        (standIn as StdioTurnStandIn).spawnSchema = schema;
        const wanted: Record<string, unknown> = {
          task_name: 'inspector',
          message: `CHILDTASK: inspect record ${CHILD_RECORD} and report back`,
          fork_turns: 'none',
          // Codex's read-only inspection role, where this Codex has agent types.
          agent_type: 'explorer',
        };
        const offeredArgs = Object.keys(schema.properties ?? {});
        next = {
          namespace: spawnNs,
          name: 'spawn_agent',
          args: Object.fromEntries(Object.entries(wanted).filter(([k]) => offeredArgs.includes(k))),
        };
      }
    }
    replyNext(res, body, { calls, tag: 'st', id: ++n, child }, next);
  }).then((s) => Object.assign(s, { calls, spawnSchema: null as unknown }));
}
