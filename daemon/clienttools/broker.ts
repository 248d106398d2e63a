import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors/exec-error.js';
import type { CallContext } from '../tools/registry.js';
import { claimRequest, settleReply, settleResult, type AnswerDeps } from './answers.js';
import { audienceOf, parkCall, type CallDeps } from './calls.js';
import type { DaemonEvent } from '../events/event.js';
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
import { PendingCalls, requestView } from './requests.js';
import { Clients, CLIENT_KEY_HEADER } from './clients.js';
import { sameSecret } from '../../lib/same-secret.js';
import { Groups, leaveGroup, newGroup, sameTools, type Group } from './groups.js';

/**
 * The client-tools broker: pending requests, claims, results, cancellation
 * and timeouts, over the connected clients (clients.ts) and their groups of
 * tools (groups.ts) with the registry revision; an agent's call is admitted
 * and parked by calls.ts and claimed and settled by answers.ts. It knows no transport: the
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
  private readonly calls: CallDeps;
  private readonly answers: AnswerDeps;
  private rev = 0;

  constructor(
    clock: Clock,
    private readonly hooks: BrokerHooks,
    /** Screens each answer as it arrives (result-exit.ts): a refused answer leaves its call pending. */
    gate: ResultGate,
  ) {
    this.pending = new PendingCalls(
      clock,
      (e) => hooks.publish(e),
      (p) => audienceOf(this.groups, p),
    );
    const publish = (e: DaemonEvent) => hooks.publish(e);
    this.calls = { clock, groups: this.groups, pending: this.pending, publish };
    this.answers = { clients: this.clients, groups: this.groups, pending: this.pending, gate };
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

  /** Throws unknown_client unless `clientId` is connected and `key` is its hello's key (a stdio child acting as itself). */
  checkOwn(clientId: string, key: string | undefined) {
    const client = this.clients.provider(clientId, key);
    if (sameSecret(client.key, key)) return client;
    throw new ExecError(
      'unknown_client',
      `client ${JSON.stringify(clientId)} is not connected; send the ${CLIENT_KEY_HEADER} of its hello`,
    );
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
    // Only the session that opened the stream registers as it (the key of its hello).
    const client = this.checkOwn(clientId, key);
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
   * Parks one agent call and publishes it (calls.ts); resolves when the app
   * answers, the call times out, its app goes away, or the agent's
   * authorization is revoked.
   */
  call(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
    delegation: Delegation | null = null,
  ): Promise<CallOutcome> {
    return parkCall(this.calls, name, args, ctx, delegation);
  }

  /** Requests a client may serve (all unsettled ones, or only the unclaimed with `onlyUnclaimed`). */
  list(clientId: string, onlyUnclaimed: boolean, key?: string): RequestView[] {
    this.clients.provider(clientId, key);
    return [...this.pending.values()]
      .filter(
        (p) => (!onlyUnclaimed || p.claimant === null) && audienceOf(this.groups, p).has(clientId),
      )
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
    return claimRequest(this.answers, requestId, clientId, key);
  }

  result(requestId: string, body: ResultBody, key?: string): { request_id: string; settled: true } {
    return settleResult(this.answers, requestId, body, key);
  }

  /** A stdio child's answer (status, text, optional structured JSON) to a call of its group. */
  reply(requestId: string, body: StdioReply, key?: string): { request_id: string; settled: true } {
    return settleReply(this.answers, requestId, body, key);
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
