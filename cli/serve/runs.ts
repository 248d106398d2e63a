import type { DaemonLink, LinkEvent } from '../daemon-link.js';
import { OperatorCallError } from '../../lib/operator-client.js';
import { isObj, RpcFailure } from './params.js';

/**
 * Sessions and runs for the app: `session.create`, `turn.start` and
 * `turn.cancel` go to the daemon's stdio session rows; the daemon's
 * `run.started` / `run.finished` events (only this child's stream sees them
 * in full) go out as notifications. A run's notifications never reach the
 * app before its `turn.start` answer: until then they wait here.
 */

interface RunDeps {
  send(frame: unknown): void;
  link(): DaemonLink | null;
  instanceId(): string;
  /** The server the child serves (`--server`), else the daemon's default. */
  readonly serverId: string | null;
}

/** Notifications held for one run whose turn.start is not answered yet (a run sends two at most). */
const HELD_PER_RUN = 4;
/** Runs whose answer may still be on its way: past this, the oldest held notifications are dropped. */
const HELD_RUNS = 64;

type Obj = Record<string, unknown>;

/** params as an object of exactly the allowed string fields, the required ones present. */
function fields(params: unknown, required: readonly string[], optional: readonly string[] = []) {
  if (!isObj(params)) throw new RpcFailure('invalid_params', 'params must be an object');
  for (const k of Object.keys(params))
    if (!required.includes(k) && !optional.includes(k))
      throw new RpcFailure('invalid_params', `unknown field "${k}"`);
  for (const k of required)
    if (!Object.hasOwn(params, k)) throw new RpcFailure('invalid_params', `${k} is required`);
  for (const [k, v] of Object.entries(params))
    if (typeof v !== 'string') throw new RpcFailure('invalid_params', `${k} must be a string`);
  return params as Record<string, string>;
}

export class RunRelay {
  /** Runs the app has its run_id for. */
  private readonly known = new Set<string>();
  /** Notifications of runs not yet answered, by run id. */
  private readonly held = new Map<string, unknown[]>();
  /** Runs answered by the request being handled: released once its answer is out. */
  private answered: string[] = [];

  constructor(private readonly deps: RunDeps) {}

  private async call(name: Parameters<DaemonLink['client']['call']>[0], input: Obj) {
    const link = this.deps.link();
    if (!link) throw new RpcFailure('unavailable', 'no daemon link');
    try {
      return (await link.client.call(name, input as never)) as Obj;
    } catch (err) {
      if (!(err instanceof OperatorCallError))
        throw new RpcFailure('unavailable', (err as Error).message);
      const code =
        err.status === 409 && err.code === 'busy'
          ? 'busy'
          : err.status < 500
            ? 'invalid_params'
            : 'unavailable';
      throw new RpcFailure(code, `${err.message} (${err.code})`);
    }
  }

  private body(extra: Obj): Obj {
    return { client_id: this.deps.instanceId(), ...extra };
  }

  async create(params: unknown): Promise<unknown> {
    const p = fields(params, ['agent'], ['target', 'workdir']);
    const server = this.deps.serverId ? { server_id: this.deps.serverId } : {};
    const r = await this.call('stdio.sessionCreate', { body: this.body({ ...server, ...p }) });
    return { session_id: r.session_id };
  }

  async start(params: unknown): Promise<unknown> {
    const p = fields(params, ['session_id', 'text']);
    const r = await this.call('stdio.turnStart', {
      params: { sessionId: p.session_id },
      body: this.body({ text: p.text }),
    });
    const runId = String(r.run_id);
    this.answered.push(runId);
    return { run_id: runId };
  }

  async cancel(params: unknown): Promise<unknown> {
    const p = fields(params, ['session_id', 'run_id']);
    const r = await this.call('stdio.turnCancel', {
      params: { sessionId: p.session_id, runId: p.run_id },
      body: this.body({}),
    });
    return { run_id: r.run_id, state: r.state };
  }

  /** The request's answer is out: the runs it named are the app's now, and what they held goes out. */
  release(): void {
    for (const runId of this.answered) {
      this.known.add(runId);
      for (const frame of this.held.get(runId) ?? []) this.out(frame);
      this.held.delete(runId);
    }
    this.answered = [];
  }

  /** A daemon event: a run notification of this child's sessions, else nothing. */
  event(e: LinkEvent): boolean {
    if (e.type !== 'run.started' && e.type !== 'run.finished') return false;
    const d = e.data;
    if (typeof d.session_id !== 'string' || typeof d.run_id !== 'string') return true;
    const data: Obj = { session_id: d.session_id, run_id: d.run_id };
    if (e.type === 'run.finished') {
      data.status = d.status;
      if (typeof d.error === 'string') data.error = d.error;
    }
    const frame = {
      jsonrpc: '2.0',
      method: e.type,
      params: { instance_id: this.deps.instanceId(), data },
    };
    if (this.known.has(d.run_id)) {
      this.out(frame);
    } else {
      const held = this.held.get(d.run_id) ?? [];
      if (held.length < HELD_PER_RUN) held.push(frame);
      this.held.set(d.run_id, held);
      if (this.held.size > HELD_RUNS) this.held.delete(this.held.keys().next().value!);
    }
    return true;
  }

  private out(frame: unknown): void {
    const f = frame as { method: string; params: { data: { run_id: string } } };
    if (f.method === 'run.finished') this.known.delete(f.params.data.run_id);
    this.deps.send(frame);
  }
}
