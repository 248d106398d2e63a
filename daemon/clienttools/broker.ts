import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import { ExecError } from '../errors.js';
import type { CallContext } from '../tools/registry.js';
import { admitStdioCall, replyOutcome } from './stdio-calls.js';
import { LIMITS, type CallOutcome, type CancelReason, type ClientToolSpec, type Delegation, type RegisterBody, type RequestView, type ResultBody, type StdioReply } from './types.js';
import { STDIO_CANCEL_REASON, type StdioCancelReason } from './types.js';
import { SettledIds, agentKeyOf, requestView, type Pending } from './requests.js';
import { inSpan, traceMeta } from '../telemetry/tracing.js';

/**
 * The client-tools broker: connected clients, groups of tools, the registry
 * revision, pending requests, claims, results, cancellation and timeouts.
 * It knows no transport: the HTTP/SSE routes (and any later adapter) call
 * its methods and receive its events through `BrokerHooks`. What a tool does
 * is the app's business; the broker only parks calls and relays answers.
 *
 * Groups are shared by name: several clients (two instances of one app) may
 * register the same group, and the group stays while any of them is
 * connected. The first client to claim a request of an agent owns that
 * agent's group from then on; other clients cannot claim its requests.
 */

export interface BrokerEvent {
  readonly type: 'client_tool.request' | 'client_tool.cancelled' | 'client_tools.changed' | 'tool.shown' | 'tool.asked' | 'tool.answered' | 'daemon.log';
  readonly data: Record<string, unknown>;
  /** What streams outside `audience` see instead (ids only); null when everyone sees `data`. */
  readonly redacted: Record<string, unknown> | null;
  /** Client ids that see `data`; null = every stream. */
  readonly audience: ReadonlySet<string> | null;
}

export interface BrokerHooks {
  /** Publishes one event on the event streams. */
  publish(event: BrokerEvent): void;
  /** The set of client tools changed (the registry adapter re-registers; names are remembered). */
  toolsChanged(groups: ReadonlyMap<string, readonly ClientToolSpec[]>, revision: number): void;
}

interface Client {
  readonly id: string;
  readonly provider: boolean;
  readonly groups: Set<string>;
  /**
   * A secret only the stream's own reader learns (its hello frame). A client
   * id is no secret (a stdio group is named after it, messages name
   * claimants), so a stdio child proves with this key that it is the
   * session that opened the stream; from its registration on, nothing may
   * act as that client without it.
   */
  readonly key: string;
  /** Registered a stdio group: every call acting as this client must carry `key`. */
  bound: boolean;
}

/** The client-key header a stdio child sends with each call acting as itself. */
export const CLIENT_KEY_HEADER = 'AgentTeam-Client-Key';

function sameKey(a: string, b: string | undefined): boolean {
  if (b === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

interface Group {
  readonly name: string;
  /**
   * A stdio child's tools: registered once by that one client, never joined
   * by another, at most 16 pending calls, each claimed by the child as it is
   * published (there is no one else to claim it).
   */
  readonly stdio: boolean;
  /** A stdio child started with --server: only that server's agents may call its tools. */
  readonly serverId: string | null;
  tools: readonly ClientToolSpec[];
  readonly providers: Set<string>;
  /** agent key -> client id that owns this agent's use of the group. */
  readonly owners: Map<string, string>;
}

export class ClientToolBroker {
  private readonly clients = new Map<string, Client>();
  private readonly groups = new Map<string, Group>();
  private readonly pending = new Map<string, Pending>();
  private readonly settled = new SettledIds();
  private rev = 0;

  constructor(
    private readonly clock: Clock,
    private readonly hooks: BrokerHooks,
  ) {}

  /** Bumps whenever the set of client tools changes. */
  get revision(): number {
    return this.rev;
  }

  /** A new connected client (one event stream); `provider` streams may register tools and serve calls. */
  connect(provider: boolean): string {
    const id = `c_${randomBytes(9).toString('base64url')}`;
    this.clients.set(id, { id, provider, groups: new Set(), key: randomBytes(18).toString('base64url'), bound: false });
    return id;
  }

  /** The key of a connected client, for its own hello frame only. */
  keyOf(clientId: string): string | undefined {
    return this.clients.get(clientId)?.key;
  }

  /** The client's stream closed: withdraw what it registered, fail what it claimed, at once. */
  disconnect(clientId: string): void {
    const client = this.clients.get(clientId);
    if (!client) return;
    this.clients.delete(clientId);
    for (const p of [...this.pending.values()]) {
      if (p.claimant === clientId) this.finish(p, { ok: false, code: 'no_client', message: 'the app that claimed this call disconnected' }, 'no_client');
    }
    let changed = false;
    for (const name of client.groups) {
      const g = this.groups.get(name);
      if (!g) continue;
      leaveGroup(g, clientId);
      if (g.providers.size === 0) {
        this.groups.delete(name);
        changed = true;
        for (const p of [...this.pending.values()]) {
          if (p.group === name) this.finish(p, { ok: false, code: 'no_client', message: `no connected app serves group "${name}" any more` }, 'no_client');
        }
      }
    }
    if (changed) this.changed();
  }

  /** The connected provider `clientId`; a stdio client only with its key (else it is as unknown as one not connected). */
  private provider(clientId: string, key?: string): Client {
    const c = this.clients.get(clientId);
    if (!c || (c.bound && !sameKey(c.key, key))) {
      throw new ExecError('unknown_client', `client ${JSON.stringify(clientId)} is not connected; open GET /api/v1/events?client_tools=1 and use the client_id of its hello`);
    }
    if (!c.provider) throw new ExecError('unknown_client', `client ${clientId} did not open its event stream with client_tools=1`);
    return c;
  }

  /**
   * Replaces a group's tools as a whole. `conflict` is asked for each new
   * name (built-in, declared and other groups' names) and throws name_conflict.
   * Tools that disappear take their pending calls with them (cancelled).
   */
  register(body: RegisterBody, conflict: (group: string, tools: readonly ClientToolSpec[]) => void): { group: string; revision: number; tools: string[] } {
    const client = this.provider(body.client_id);
    const existing = this.groups.get(body.group);
    if (existing?.stdio) throw new ExecError('owned_by_other', `group "${body.group}" belongs to a stdio child`);
    const others = [...this.groups.values()].filter((g) => g.name !== body.group).reduce((n, g) => n + g.tools.length, 0);
    if (others + body.tools.length > LIMITS.toolsPerDaemon) {
      throw new ExecError('too_many_tools', `the daemon holds at most ${LIMITS.toolsPerDaemon} client tools; ${others} are registered in other groups and this group has ${body.tools.length}`);
    }
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
    const group = existing ?? { name: body.group, stdio: false, serverId: null, tools: [], providers: new Set<string>(), owners: new Map<string, string>() };
    const before = group.tools;
    group.tools = body.tools;
    group.providers.add(client.id);
    client.groups.add(body.group);
    this.groups.set(body.group, group);
    const kept = new Set(body.tools.map((t) => t.name));
    for (const p of [...this.pending.values()]) {
      if (p.group === body.group && !kept.has(p.tool.name)) {
        this.finish(p, { ok: false, code: 'cancelled', message: `the app withdrew tool "${p.tool.name}"` }, 'tool_withdrawn');
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
  registerStdio(clientId: string, key: string | undefined, tools: readonly ClientToolSpec[], conflict: (group: string, tools: readonly ClientToolSpec[]) => void, serverId: string | null = null): { group: string; revision: number; tools: string[] } {
    const client = this.provider(clientId, key);
    // Only the session that opened the stream registers as it (the key of its hello).
    if (!sameKey(client.key, key)) throw new ExecError('unknown_client', `client ${JSON.stringify(clientId)} is not connected; send the ${CLIENT_KEY_HEADER} of its hello`);
    if (client.groups.size > 0) throw new ExecError('invalid_request', 'a stdio child registers once, at initialize; restart it to change its tools');
    const name = `stdio.${clientId}`;
    const others = [...this.groups.values()].reduce((n, g) => n + g.tools.length, 0);
    if (others + tools.length > LIMITS.toolsPerDaemon) {
      throw new ExecError('too_many_tools', `the daemon holds at most ${LIMITS.toolsPerDaemon} client tools; ${others} are registered by other apps and this child has ${tools.length}`);
    }
    conflict(name, tools);
    client.bound = true;
    if (tools.length > 0) {
      this.groups.set(name, { name, stdio: true, serverId, tools, providers: new Set([clientId]), owners: new Map() });
      client.groups.add(name);
      this.changed();
    }
    return { group: name, revision: this.rev, tools: tools.map((t) => t.name) };
  }

  private dropGroup(g: Group): void {
    this.groups.delete(g.name);
    for (const p of [...this.pending.values()]) {
      if (p.group === g.name) this.finish(p, { ok: false, code: 'cancelled', message: `the app withdrew group "${g.name}"` }, 'tool_withdrawn');
    }
    this.changed();
  }

  private changed(): void {
    this.rev++;
    const snapshot = new Map([...this.groups.values()].map((g) => [g.name, g.tools] as const));
    this.hooks.toolsChanged(snapshot, this.rev);
    const names = [...snapshot.values()].flat().map((t) => t.name);
    this.hooks.publish({ type: 'client_tools.changed', data: { revision: this.rev, tools: names }, redacted: null, audience: null });
  }

  /** The tool of that name and its group, if a connected app offers it. */
  find(name: string): { group: string; tool: ClientToolSpec } | undefined {
    for (const g of this.groups.values()) {
      const tool = g.tools.find((t) => t.name === name);
      if (tool) return { group: g.name, tool };
    }
    return undefined;
  }

  /** Every offered tool with its group, in registration order. */
  offered(): { group: string; tool: ClientToolSpec }[] {
    return [...this.groups.values()].flatMap((g) => g.tools.map((tool) => ({ group: g.name, tool })));
  }

  /**
   * Parks one agent call and publishes it; resolves when the app answers, the
   * call times out, its app goes away, or the agent's authorization is revoked.
   */
  call(name: string, args: Record<string, unknown>, ctx: CallContext, delegation: Delegation | null = null): Promise<CallOutcome> {
    const found = this.find(name);
    if (!found) return Promise.resolve({ ok: false, code: 'no_client', message: `no connected app offers tool "${name}"` });
    // The agent's runtime ends (revocation), or the agent stops waiting (its request closes).
    const gone = ctx.gone?.();
    if (ctx.signal.aborted || gone?.aborted) return Promise.resolve({ ok: false, code: 'cancelled', message: 'the agent stopped' });
    const group = this.groups.get(found.group)!;
    let call: Pending['call'];
    if (group.serverId !== null && group.serverId !== ctx.principal.serverId) {
      return Promise.resolve({ ok: false, code: 'no_client', message: `the app offers "${name}" to agents of server ${group.serverId} only` });
    }
    if (group.stdio) {
      let held = 0;
      for (const q of this.pending.values()) if (q.group === group.name) held++;
      const admitted = admitStdioCall(found.tool, args, ctx, delegation, held);
      if (!admitted.ok) return Promise.resolve(admitted.outcome);
      call = admitted.call;
    }
    // A producer span for the wait on the app; its context travels in the request as _meta.
    return inSpan(`client_tool ${name}`, { 'gen_ai.tool.name': name, 'agentteam.client_tools.group': found.group }, () => new Promise<CallOutcome>((resolve) => {
      const id = `req_${randomBytes(12).toString('base64url')}`;
      const onAbort = () => {
        const p = this.pending.get(id);
        const why = ctx.signal.reason instanceof ExecError ? ctx.signal.reason.extra.metadata?.reason : undefined;
        if (p && why === 'shutdown') this.finish(p, { ok: false, code: 'cancelled', message: 'the daemon is stopping' }, 'shutdown');
        // A runtime that ended is the run finishing; an agent that only stopped waiting cancelled its call.
        else if (p) this.finish(p, { ok: false, code: 'cancelled', message: 'the agent stopped' }, 'agent_stopped', ctx.signal.aborted ? 'run_finished' : 'cancelled');
      };
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      gone?.addEventListener('abort', onAbort, { once: true });
      const p: Pending = {
        id, group: found.group, tool: found.tool, args, ctx, agentKey: agentKeyOf(ctx), createdAt: this.clock.now(), call, meta: traceMeta(),
        // A stdio child is the only one who can serve its group: the call is its own from the start.
        claimant: group.stdio ? [...group.providers][0]! : null,
        timer: null, settle: resolve, unlisten: () => {
          ctx.signal.removeEventListener('abort', onAbort);
          gone?.removeEventListener('abort', onAbort);
        },
      };
      this.pending.set(id, p);
      // The deadline is absolute from here, before publishing: delivery, claim and execution all count.
      const ms = found.tool.timeout_ms ?? found.tool.timeout_s * 1000;
      if (ms > 0) {
        const said = found.tool.timeout_ms !== undefined ? `${ms} ms` : `${found.tool.timeout_s} s`;
        p.timer = this.clock.setTimeout(() => {
          this.finish(p, { ok: false, code: 'timeout', message: `the app did not answer within ${said}` }, 'timeout');
        }, ms);
        p.timer.unref?.();
      }
      const view = requestView(p);
      this.hooks.publish({ type: 'client_tool.request', data: view as unknown as Record<string, unknown>, redacted: { request_id: id }, audience: this.audienceOf(p) });
    }), 'producer');
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
    this.provider(clientId, key);
    return [...this.pending.values()]
      .filter((p) => (!onlyUnclaimed || p.claimant === null) && this.audienceOf(p).has(clientId))
      .map((p) => requestView(p));
  }

  /** Without a client: every unsettled request, reduced to what a non-provider stream may see plus its place (a stdio child's calls are its own). */
  listIds(onlyUnclaimed: boolean): { request_id: string; group: string; tool: string; state: 'pending' | 'claimed' }[] {
    return [...this.pending.values()]
      .filter((p) => p.call === undefined && (!onlyUnclaimed || p.claimant === null))
      .map((p) => ({ request_id: p.id, group: p.group, tool: p.tool.name, state: p.claimant === null ? 'pending' : 'claimed' }));
  }

  claim(requestId: string, clientId: string, key?: string): RequestView {
    this.provider(clientId, key);
    const p = this.pending.get(requestId);
    if (!p) throw new ExecError('unknown_request', `no pending request ${JSON.stringify(requestId)} (unknown or already settled)`);
    const g = this.groups.get(p.group);
    const owner = g?.owners.get(p.agentKey);
    if (owner !== undefined && owner !== clientId) {
      throw new ExecError('owned_by_other', `client ${owner} serves group "${p.group}" for agent ${p.ctx.principal.agentId}`);
    }
    if (p.claimant !== null) throw new ExecError('already_claimed', `request ${requestId} was already claimed by ${p.claimant === clientId ? 'you' : p.claimant}`);
    if (!g?.providers.has(clientId)) throw new ExecError('owned_by_other', `client ${clientId} does not provide group "${p.group}"`);
    p.claimant = clientId;
    g.owners.set(p.agentKey, clientId);
    return requestView(p);
  }

  /** The pending request an answer is for; already_settled when its result came before. */
  private answerable(requestId: string): Pending {
    const p = this.pending.get(requestId);
    if (p) return p;
    if (this.settled.has(requestId)) throw new ExecError('already_settled', `request ${requestId} already has its result`);
    throw new ExecError('unknown_request', `no pending request ${JSON.stringify(requestId)} (unknown or already settled)`);
  }

  result(requestId: string, body: ResultBody, key?: string): { request_id: string; settled: true } {
    this.provider(body.client_id, key);
    const p = this.answerable(requestId);
    if (p.claimant !== body.client_id) {
      throw new ExecError('not_claimant', p.claimant === null ? `claim request ${requestId} before answering it` : `request ${requestId} was claimed by another client`);
    }
    const outcome: CallOutcome = body.ok ? { ok: true, content: body.content } : { ok: false, code: body.error.code, message: body.error.message };
    this.finish(p, outcome, null);
    return { request_id: requestId, settled: true };
  }

  /** A stdio child's answer (status, text, optional structured JSON) to a call of its group. */
  reply(requestId: string, body: StdioReply, key?: string): { request_id: string; settled: true } {
    this.provider(body.client_id, key);
    const p = this.answerable(requestId);
    if (p.call === undefined) throw new ExecError('invalid_request', `request ${requestId} is not a call of a stdio child; answer it with /result`);
    if (p.claimant !== body.client_id) throw new ExecError('not_claimant', `request ${requestId} belongs to another client`);
    this.finish(p, replyOutcome(body), null);
    return { request_id: requestId, settled: true };
  }

  private finish(p: Pending, outcome: CallOutcome, cancel: CancelReason | null, stdioReason?: StdioCancelReason): void {
    if (!this.pending.delete(p.id)) return;
    if (p.timer) this.clock.clearTimeout(p.timer);
    p.unlisten();
    this.settled.add(p.id);
    if (cancel === null) {
      // answered by its app: nothing to tell
    } else if (cancel !== 'no_client' || p.claimant === null) {
      // The app is told, unless the one app that held it is the one that went away.
      const audience = p.claimant ? new Set([p.claimant]) : this.audienceOf(p);
      // A stdio child also gets the reason in the stdio contract's words (its calls alone carry `call`).
      const data = p.call ? { request_id: p.id, reason: cancel, call_reason: stdioReason ?? STDIO_CANCEL_REASON[cancel] } : { request_id: p.id, reason: cancel };
      this.hooks.publish({ type: 'client_tool.cancelled', data, redacted: { request_id: p.id }, audience });
    }
    p.settle(outcome);
  }

  /** Daemon stop: every parked call ends. */
  shutdown(): void {
    for (const p of [...this.pending.values()]) this.finish(p, { ok: false, code: 'cancelled', message: 'the daemon is stopping' }, 'shutdown');
  }

  /** The connected clients as an operator sees them: what each is and the groups it holds, never its key. */
  connected(): { clientId: string; provider: boolean; groups: string[] }[] {
    return [...this.clients.values()].map((c) => ({ clientId: c.id, provider: c.provider, groups: [...c.groups].sort() }));
  }

  stats(): { clients: number; groups: number; tools: number; pending: number } {
    return { clients: this.clients.size, groups: this.groups.size, tools: this.offered().length, pending: this.pending.size };
  }
}

/** A client stops providing a group: it no longer serves it, nor owns any agent's use of it. */
function leaveGroup(g: Group, clientId: string): void {
  g.providers.delete(clientId);
  for (const [agent, owner] of g.owners) if (owner === clientId) g.owners.delete(agent);
}

function sameTools(a: readonly ClientToolSpec[], b: readonly ClientToolSpec[]): boolean {
  return a.length === b.length && JSON.stringify(a) === JSON.stringify(b);
}
