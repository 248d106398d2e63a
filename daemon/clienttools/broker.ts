import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import type { CallContext } from '../tools/registry.js';
import { admitStdioCall, replyAnswer } from './stdio-calls.js';
import { answerOutcome } from './result-exit.js';
import type { ResultGate } from '../results/gate.js';
import type {
  BrokerHooks,
  CallOutcome,
  ClientToolSpec,
  Delegation,
  RegisterBody,
  RequestView,
  ResultBody,
  StdioReply,
} from './types.js';
import {
  PendingCalls,
  agentKeyOf,
  newRequestId,
  requestView,
  whenAborted,
  type Pending,
} from './requests.js';
import { Clients, CLIENT_KEY_HEADER } from './clients.js';
import { sameSecret } from '../../lib/same-secret.js';
import { Groups, leaveGroup, newGroup, sameTools, type Group } from './groups.js';
import { inSpan, traceMeta } from '../telemetry/tracing.js';

/**
 * The client-tools broker: pending requests, claims, results, cancellation
 * and timeouts, over the connected clients (clients.ts) and their groups of
 * tools (groups.ts) with the registry revision. It knows no transport: the
 * HTTP/SSE routes (and any later adapter) call its methods and receive its
 * events through `BrokerHooks`. What a tool does is the app's business; the
 * broker only parks calls and relays answers.
 *
 * Nothing on the call path waits for a timer: a call is published the moment
 * it is parked, and settles the moment its result (or its end) arrives. The
 * only timer a call arms is its own deadline.
 */

export class ClientToolBroker {
  private readonly clients = new Clients();
  private readonly groups = new Groups();
  private readonly pending: PendingCalls;
  private rev = 0;

  constructor(
    private readonly clock: Clock,
    private readonly hooks: BrokerHooks,
    /** Screens each answer as it arrives (result-exit.ts): a refused answer leaves its call pending. */
    private readonly gate: ResultGate,
  ) {
    this.pending = new PendingCalls(
      clock,
      (e) => hooks.publish(e),
      (p) => this.audienceOf(p),
    );
  }

  /** Bumps whenever the set of client tools changes. */
  get revision(): number {
    return this.rev;
  }

  /** A new connected client (one event stream); `provider` streams may register tools and serve calls. */
  connect(provider: boolean): string {
    return this.clients.connect(provider);
  }

  /** The key of a connected client, for its own hello frame only. */
  keyOf(clientId: string): string | undefined {
    return this.clients.keyOf(clientId);
  }

  /** The client's stream closed: withdraw what it registered, fail what it claimed, at once. */
  disconnect(clientId: string): void {
    const client = this.clients.remove(clientId);
    if (!client) return;
    this.pending.endWhere(
      (p) => p.claimant === clientId,
      { ok: false, code: 'no_client', message: 'the app that claimed this call disconnected' },
      'no_client',
    );
    let changed = false;
    for (const name of client.groups) {
      const g = this.groups.get(name);
      if (!g) continue;
      leaveGroup(g, clientId);
      if (g.providers.size === 0) {
        this.groups.delete(name);
        changed = true;
        this.pending.endWhere(
          (p) => p.group === name,
          {
            ok: false,
            code: 'no_client',
            message: `no connected app serves group "${name}" any more`,
          },
          'no_client',
        );
      }
    }
    if (changed) this.changed();
  }

  /**
   * Replaces a group's tools as a whole. `conflict` is asked for each new
   * name (built-in, declared and other groups' names) and throws name_conflict.
   * Tools that disappear take their pending calls with them (cancelled).
   */
  register(
    body: RegisterBody,
    conflict: (group: string, tools: readonly ClientToolSpec[]) => void,
  ): { group: string; revision: number; tools: string[] } {
    const client = this.clients.provider(body.client_id);
    const existing = this.groups.get(body.group);
    if (existing?.stdio)
      throw new ExecError('owned_by_other', `group "${body.group}" belongs to a stdio child`);
    this.groups.checkRoom(body.tools.length, body.group);
    conflict(body.group, body.tools);
    if (body.tools.length === 0) {
      // An empty group is a withdrawal by this client.
      if (existing) {
        leaveGroup(existing, client.id);
        client.groups.delete(body.group);
        if (existing.providers.size === 0) this.dropGroup(existing);
      }
      return { group: body.group, revision: this.rev, tools: [] };
    }
    const group = existing ?? newGroup(body.group);
    const before = group.tools;
    group.tools = body.tools;
    group.providers.add(client.id);
    client.groups.add(body.group);
    this.groups.set(group);
    const kept = new Set(body.tools.map((t) => t.name));
    for (const p of this.pending.values()) {
      if (p.group === body.group && !kept.has(p.tool.name)) {
        this.pending.finish(
          p,
          { ok: false, code: 'cancelled', message: `the app withdrew tool "${p.tool.name}"` },
          'tool_withdrawn',
        );
      }
    }
    if (!sameTools(before, body.tools)) this.changed();
    return { group: body.group, revision: this.rev, tools: body.tools.map((t) => t.name) };
  }

  /**
   * A stdio child's one registration (startup only): its own group
   * `stdio.<client id>`, checked against the daemon-wide tool limit and
   * every other name, withdrawn when the child's stream closes.
   */
  registerStdio(
    clientId: string,
    key: string | undefined,
    tools: readonly ClientToolSpec[],
    conflict: (group: string, tools: readonly ClientToolSpec[]) => void,
    serverId: string | null = null,
  ): { group: string; revision: number; tools: string[] } {
    const client = this.clients.provider(clientId, key);
    // Only the session that opened the stream registers as it (the key of its hello).
    if (!sameSecret(client.key, key))
      throw new ExecError(
        'unknown_client',
        `client ${JSON.stringify(clientId)} is not connected; send the ${CLIENT_KEY_HEADER} of its hello`,
      );
    if (client.groups.size > 0)
      throw new ExecError(
        'invalid_request',
        'a stdio child registers once, at initialize; restart it to change its tools',
      );
    const name = `stdio.${clientId}`;
    this.groups.checkRoom(tools.length, null);
    conflict(name, tools);
    client.bound = true;
    if (tools.length > 0) {
      this.groups.set({
        name,
        stdio: true,
        serverId,
        tools,
        providers: new Set([clientId]),
        owners: new Map(),
      });
      client.groups.add(name);
      this.changed();
    }
    return { group: name, revision: this.rev, tools: tools.map((t) => t.name) };
  }

  private dropGroup(g: Group): void {
    this.groups.delete(g.name);
    this.pending.endWhere(
      (p) => p.group === g.name,
      { ok: false, code: 'cancelled', message: `the app withdrew group "${g.name}"` },
      'tool_withdrawn',
    );
    this.changed();
  }

  private changed(): void {
    this.rev++;
    const snapshot = this.groups.snapshot();
    this.hooks.toolsChanged(snapshot, this.rev);
    const names = [...snapshot.values()].flat().map((t) => t.name);
    this.hooks.publish({
      type: 'client_tools.changed',
      data: { revision: this.rev, tools: names },
      redacted: null,
      audience: null,
    });
  }

  /** Every offered tool with its group, in registration order. */
  offered(): { group: string; tool: ClientToolSpec }[] {
    return this.groups.offered();
  }

  /**
   * Parks one agent call and publishes it; resolves when the app answers, the
   * call times out, its app goes away, or the agent's authorization is revoked.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
    delegation: Delegation | null = null,
  ): Promise<CallOutcome> {
    const found = this.groups.find(name);
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
      for (const q of this.pending.values()) if (q.group === group.name) held++;
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
            const p = this.pending.get(id);
            const why =
              ctx.signal.reason instanceof ExecError
                ? ctx.signal.reason.extra.metadata?.reason
                : undefined;
            if (p && why === 'shutdown')
              this.pending.finish(
                p,
                { ok: false, code: 'cancelled', message: 'the daemon is stopping' },
                'shutdown',
              );
            // A runtime that ended is the run finishing; an agent that only stopped waiting cancelled its call.
            else if (p)
              this.pending.finish(
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
            createdAt: this.clock.now(),
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
          this.pending.add(p);
          // The deadline is absolute from here, before publishing: delivery, claim and execution all count.
          const ms = found.tool.timeout_ms ?? found.tool.timeout_s * 1000;
          if (ms > 0) {
            const said =
              found.tool.timeout_ms !== undefined ? `${ms} ms` : `${found.tool.timeout_s} s`;
            p.timer = this.clock.setTimeout(() => {
              this.pending.finish(
                p,
                { ok: false, code: 'timeout', message: `the app did not answer within ${said}` },
                'timeout',
              );
            }, ms);
            p.timer.unref?.();
          }
          const view = requestView(p);
          this.hooks.publish({
            type: 'client_tool.request',
            data: view as unknown as Record<string, unknown>,
            redacted: { request_id: id },
            audience: this.audienceOf(p),
          });
        }),
      'producer',
    );
  }

  /** Who may see a request in full: its group's owner for that agent, else every provider of the group. */
  private audienceOf(p: Pending): ReadonlySet<string> {
    const g = this.groups.get(p.group);
    if (!g) return new Set();
    const owner = p.claimant ?? g.owners.get(p.agentKey);
    return owner ? new Set([owner]) : new Set(g.providers);
  }

  /** Requests a client may serve (all unsettled ones, or only the unclaimed with `onlyUnclaimed`). */
  list(clientId: string, onlyUnclaimed: boolean, key?: string): RequestView[] {
    this.clients.provider(clientId, key);
    return [...this.pending.values()]
      .filter((p) => (!onlyUnclaimed || p.claimant === null) && this.audienceOf(p).has(clientId))
      .map((p) => requestView(p));
  }

  /** Without a client: every unsettled request, reduced to what a non-provider stream may see plus its place (a stdio child's calls are its own). */
  listIds(
    onlyUnclaimed: boolean,
  ): { request_id: string; group: string; tool: string; state: 'pending' | 'claimed' }[] {
    return [...this.pending.values()]
      .filter((p) => p.call === undefined && (!onlyUnclaimed || p.claimant === null))
      .map((p) => ({
        request_id: p.id,
        group: p.group,
        tool: p.tool.name,
        state: p.claimant === null ? 'pending' : 'claimed',
      }));
  }

  claim(requestId: string, clientId: string, key?: string): RequestView {
    this.clients.provider(clientId, key);
    const p = this.pending.get(requestId);
    if (!p)
      throw new ExecError(
        'unknown_request',
        `no pending request ${JSON.stringify(requestId)} (unknown or already settled)`,
      );
    const g = this.groups.get(p.group);
    const owner = g?.owners.get(p.agentKey);
    if (owner !== undefined && owner !== clientId) {
      throw new ExecError(
        'owned_by_other',
        `client ${owner} serves group "${p.group}" for agent ${p.ctx.principal.agentId}`,
      );
    }
    if (p.claimant !== null)
      throw new ExecError(
        'already_claimed',
        `request ${requestId} was already claimed by ${p.claimant === clientId ? 'you' : p.claimant}`,
      );
    if (!g?.providers.has(clientId))
      throw new ExecError(
        'owned_by_other',
        `client ${clientId} does not provide group "${p.group}"`,
      );
    p.claimant = clientId;
    g.owners.set(p.agentKey, clientId);
    return requestView(p);
  }

  result(requestId: string, body: ResultBody, key?: string): { request_id: string; settled: true } {
    this.clients.provider(body.client_id, key);
    const p = this.pending.answerable(requestId);
    if (p.claimant !== body.client_id) {
      throw new ExecError(
        'not_claimant',
        p.claimant === null
          ? `claim request ${requestId} before answering it`
          : `request ${requestId} was claimed by another client`,
      );
    }
    // Throws (validation_failed) before anything settles when the gate refuses the answer.
    const outcome = answerOutcome(
      this.gate,
      body.ok ? { content: body.content, isError: false } : body.error,
    );
    this.pending.finish(p, outcome, null);
    return { request_id: requestId, settled: true };
  }

  /** A stdio child's answer (status, text, optional structured JSON) to a call of its group. */
  reply(requestId: string, body: StdioReply, key?: string): { request_id: string; settled: true } {
    this.clients.provider(body.client_id, key);
    const p = this.pending.answerable(requestId);
    if (p.call === undefined)
      throw new ExecError(
        'invalid_request',
        `request ${requestId} is not a call of a stdio child; answer it with /result`,
      );
    if (p.claimant !== body.client_id)
      throw new ExecError('not_claimant', `request ${requestId} belongs to another client`);
    this.pending.finish(p, answerOutcome(this.gate, replyAnswer(body)), null);
    return { request_id: requestId, settled: true };
  }

  /** Daemon stop: every parked call ends. */
  shutdown(): void {
    this.pending.endWhere(
      () => true,
      { ok: false, code: 'cancelled', message: 'the daemon is stopping' },
      'shutdown',
    );
  }

  /** The connected clients as an operator sees them: what each is and the groups it holds, never its key. */
  connected(): { clientId: string; provider: boolean; groups: string[] }[] {
    return this.clients.connected();
  }

  stats(): { clients: number; groups: number; tools: number; pending: number } {
    return {
      clients: this.clients.size,
      groups: this.groups.size,
      tools: this.offered().length,
      pending: this.pending.size,
    };
  }
}
