import { spawn, type ChildProcess } from 'node:child_process';
import type { AppServerEvent } from '../../../catalog/operator/runtimes.js';
import type { Authorization } from '../../auth/authorization.js';
import type { Diag } from '../../lifecycle/diag.js';
import type { ToolHost } from '../../tools/contracts.js';
import type { ResultGate } from '../../results/gate.js';
import { ExecError, errorBody } from '../../errors/exec-error.js';
import { attachedThread, THREAD_META_KEY } from '../../http/child-gate.js';
import { errorResult } from '../../tools/tool-result.js';
import { MethodNotFound, RpcPeer } from './rpc.js';
import { ThreadBook } from './threads.js';
import { DYNAMIC_NAMESPACE, dynamicTools, toDynamicResponse } from './dynamic-tools.js';
import { type WireParams, wireParams } from './wire.js';

/** One line of what `agentteam run` prints about the run: the NDJSON of the start route, typed by its row. */
type SessionEvent = AppServerEvent;

interface SessionOptions {
  readonly auth: Authorization;
  /** The executable and its arguments (`codex app-server ...`); agentteam's `-c` overrides go right after the executable. */
  readonly command: readonly string[];
  readonly overrides: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string | null;
  readonly prompt: string;
  readonly developerInstructions: string;
  readonly host: ToolHost;
  readonly gate: ResultGate;
  readonly diag: Diag;
  readonly emit: (e: SessionEvent) => void;
  /** How long the run stays quiet after the last turn ended before it is over (a spawned thread may still start). */
  readonly settleMs?: number;
}

/**
 * Approval requests the app server may send; with no person at this end they
 * are declined, in each method's own words. A Map, not an object literal: the
 * method name comes from the app server, and `constructor` or `__proto__`
 * looked up on a plain object finds Object.prototype's members.
 */
const DECLINE: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['item/commandExecution/requestApproval', { decision: 'decline' }],
  ['item/fileChange/requestApproval', { decision: 'decline' }],
  ['execCommandApproval', { decision: 'denied' }],
  ['applyPatchApproval', { decision: 'denied' }],
]);

const STOP_GRACE_MS = 3_000;

/**
 * One run of `codex app-server` driven by the daemon: initialize, a primary
 * thread started with agentteam's tools as dynamic tools and the layered
 * developer instructions, one turn with the prompt. Every `item/tool/call`
 * carries Codex's own thread id; the thread book says whether that is the
 * primary thread, a thread it spawned, or neither, and the tool host's one
 * gate decides from that role and the trusted inventory. Ends when no thread
 * of the run is working any more (or the authorization is revoked, or the
 * app server exits); resolves with the final status.
 */
export async function runAppServerSession(o: SessionOptions): Promise<string> {
  const [bin, ...rest] = o.command;
  if (!bin) throw new ExecError('invalid_request', 'command is empty');
  const child: ChildProcess = spawn(bin, [...o.overrides, ...rest], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: o.env,
    ...(o.cwd ? { cwd: o.cwd } : {}),
    detached: true,
  });
  let stderrTail = '';
  child.stderr!.on(
    'data',
    (c: Buffer) => (stderrTail = (stderrTail + c.toString('utf8')).slice(-4000)),
  );
  const authId = o.auth.id;
  let book: ThreadBook | null = null;
  const early: [string, unknown][] = [];
  let primaryDone: { status: string; error: string | null } | null = null;
  let settle: NodeJS.Timeout | null = null;
  let finish!: (status: { status: string; error: string | null }) => void;
  const finished = new Promise<{ status: string; error: string | null }>((r) => (finish = r));

  const checkDone = () => {
    if (settle) clearTimeout(settle);
    if (!primaryDone || !book || book.busy()) return;
    settle = setTimeout(() => {
      if (primaryDone && book && !book.busy()) finish(primaryDone);
    }, o.settleMs ?? 1_000);
  };

  const onNotify = (method: string, raw: unknown) => {
    if (!book) {
      early.push([method, raw]);
      return;
    }
    const params = wireParams(raw);
    for (const t of book.learn(method, params)) {
      o.diag('codex_thread', {
        authorizationId: authId,
        threadId: t.threadId,
        role: 'child',
        parentThreadId: t.parentId,
      });
      o.emit({ event: 'thread', threadId: t.threadId, role: 'child', parentId: t.parentId });
    }
    if (
      method === 'item/completed' &&
      params?.item?.type === 'agentMessage' &&
      typeof params.item.text === 'string'
    ) {
      o.emit({ event: 'message', threadId: String(params.threadId ?? ''), text: params.item.text });
    }
    if (method === 'error' && typeof params?.error?.message === 'string')
      o.emit({ event: 'warning', message: params.error.message });
    if (method === 'turn/completed' && params?.threadId === book.primary) {
      const turn = params.turn ?? {};
      const error = turn.error?.message;
      primaryDone = {
        status: String(turn.status ?? 'completed'),
        error: error === undefined || error === null ? null : String(error),
      };
    }
    checkDone();
  };

  const onToolCall = async (params: WireParams) => {
    const threadId = typeof params?.threadId === 'string' ? params.threadId : '';
    const tool = typeof params?.tool === 'string' ? params.tool : '';
    const role = book ? book.role(threadId) : 'unknown';
    const args = params?.arguments;
    let resultJson: string;
    if (params?.namespace !== DYNAMIC_NAMESPACE) {
      resultJson = errorResult(
        errorBody(
          new ExecError('not_found', `no agentteam tool ${String(params?.namespace)}.${tool}`),
        ),
      );
    } else {
      try {
        // The thread is Codex's; one the model writes into the arguments must agree with it.
        const meta =
          args !== null && typeof args === 'object'
            ? (args as { _meta?: unknown })._meta
            : undefined;
        const field =
          meta && typeof meta === 'object'
            ? (meta as Record<string, unknown>)[THREAD_META_KEY]
            : undefined;
        const claimed = typeof field === 'string' ? field : null;
        attachedThread(claimed, threadId);
        const principal = { ...o.auth.principal, primaryThreadId: book?.primary ?? null };
        const out = await o.host.call(tool, args, {
          principal,
          signal: o.auth.signal,
          threadId,
          threadRole: role,
        });
        resultJson = out.ok
          ? out.resultJson
          : errorResult(errorBody(new ExecError('invalid_request', out.message)));
      } catch (err) {
        resultJson = errorResult(errorBody(err));
      }
    }
    const answer = toDynamicResponse(o.gate.screenBody(resultJson, 'application/json').body);
    const decision = answer.refused ? 'refused' : 'allowed';
    o.diag('codex_tool_gate', {
      authorizationId: authId,
      threadId,
      role,
      tool,
      decision,
      isError: !answer.success,
    });
    o.emit({ event: 'tool', threadId, role, tool, decision, isError: !answer.success });
    return { contentItems: answer.contentItems, success: answer.success };
  };

  const peer = new RpcPeer(child.stdout!, child.stdin!, {
    onRequest: async (method, raw) => {
      const params = wireParams(raw);
      if (method === 'item/tool/call') return onToolCall(params);
      o.emit({
        event: 'declined',
        threadId: typeof params?.threadId === 'string' ? params.threadId : null,
        method,
      });
      if (DECLINE.has(method)) return DECLINE.get(method);
      throw new MethodNotFound(
        `agentteam's app-server driver does not handle ${JSON.stringify(method.slice(0, 128))}`,
      );
    },
    onNotify,
    onBadLine: (why) => o.diag('codex_app_server', { authorizationId: authId, problem: why }),
  });
  child.stdin!.on('error', () => undefined);

  const exited = new Promise<{ status: string; error: string | null }>((resolve) => {
    child.on('error', (err) =>
      resolve({ status: 'failed', error: `cannot start ${bin}: ${err.message}` }),
    );
    child.on('exit', (code, signal) => {
      peer.close(new Error('the app server exited'));
      resolve({
        status: 'failed',
        error: `the app server exited (${signal ?? `status ${code}`}): ${stderrTail.trim().split('\n').slice(-3).join(' / ')}`,
      });
    });
  });
  const revoked = new Promise<{ status: string; error: string | null }>((resolve) => {
    if (o.auth.signal.aborted) resolve({ status: 'revoked', error: 'the authorization ended' });
    o.auth.signal.addEventListener(
      'abort',
      () => resolve({ status: 'revoked', error: 'the authorization ended' }),
      { once: true },
    );
  });

  const drive = async (): Promise<{ status: string; error: string | null }> => {
    await peer.request('initialize', {
      clientInfo: { name: 'agentteam', title: 'AgentTeam', version: '0.1.0' },
      capabilities: { experimentalApi: true },
    });
    peer.notify('initialized');
    const started = await peer.request<{ thread: { id: string } }>('thread/start', {
      cwd: o.cwd ?? undefined,
      developerInstructions: o.developerInstructions,
      dynamicTools: dynamicTools(o.host, o.auth),
    });
    const primary = started?.thread?.id;
    if (typeof primary !== 'string' || primary.length === 0)
      throw new Error('thread/start returned no thread id');
    book = new ThreadBook(primary);
    o.diag('codex_thread', {
      authorizationId: authId,
      threadId: primary,
      role: 'primary',
      parentThreadId: null,
    });
    o.emit({ event: 'thread', threadId: primary, role: 'primary', parentId: null });
    for (const [m, p] of early.splice(0)) onNotify(m, p);
    await peer.request('turn/start', {
      threadId: primary,
      input: [{ type: 'text', text: o.prompt }],
    });
    return finished;
  };

  let result: { status: string; error: string | null };
  try {
    result = await Promise.race([drive(), exited, revoked]);
  } catch (err) {
    result = { status: 'failed', error: (err as Error).message };
  }
  if (settle) clearTimeout(settle);
  await stop(child);
  o.emit({ event: 'done', ...result });
  return result.status;
}

/** Ends the app server: its stdin first (it exits at EOF), then its process group. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.stdin?.end();
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      child.kill(sig);
    }
  };
  const term = setTimeout(() => kill('SIGTERM'), 500);
  const hard = setTimeout(() => kill('SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(term);
  clearTimeout(hard);
}
