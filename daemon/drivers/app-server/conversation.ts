import type { Readable, Writable } from 'node:stream';
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
import { noteDelegations } from './delegation.js';
import { DYNAMIC_NAMESPACE, dynamicTools, toDynamicResponse } from './dynamic-tools.js';
import { type WireParams, wireParams } from './wire.js';
import type { AskOrigin } from '../../approvals/lookup.js';
import { CodexApprovals, declineWords, type NativeAsker } from './approvals.js';

/** One line of what `agentteam run` prints about the run: the NDJSON of the start route, typed by its row. */
type SessionEvent = AppServerEvent;

export interface ConversationOptions {
  readonly auth: Authorization;
  readonly cwd: string | null;
  readonly prompt: string;
  readonly developerInstructions: string;
  readonly host: ToolHost;
  readonly gate: ResultGate;
  readonly diag: Diag;
  readonly emit: (e: SessionEvent) => void;
  /** How long the run stays quiet after the last turn ended before it is over (a spawned thread may still start). */
  readonly settleMs?: number;
  /** A thread of an earlier run to continue (`thread/resume`); null or absent starts a new one. */
  readonly resume?: string | null;
  /** Told the primary thread once the app server named it, and whether it was resumed. */
  readonly onPrimary?: (threadId: string, resumed: boolean) => Promise<void> | void;
  /** The daemon's inbox for Codex's command and file-change approvals; without it they are declined. */
  readonly approvals?: { readonly asker: NativeAsker; readonly origin: AskOrigin };
}

/** How a conversation ended: `completed` when the primary turn completed. */
export interface Outcome {
  readonly status: string;
  readonly error: string | null;
}

/** The app server's stdio, and how its process ended (when it does). */
interface AppServerIo {
  readonly input: Writable;
  readonly output: Readable;
  readonly exited: Promise<Outcome>;
}

/**
 * One conversation with a running `codex app-server`: initialize, the
 * primary thread (started with agentteam's tools as dynamic tools and the
 * layered developer instructions, or an earlier one resumed), one turn with
 * the prompt. Every `item/tool/call` carries Codex's own thread id; the
 * thread book says whether that is the primary thread, a thread it spawned,
 * or neither, and the tool host's one gate decides from that role and the
 * trusted inventory. Ends when no thread of the run is working any more (or
 * the authorization is revoked, or the app server exits).
 */
export async function converse(o: ConversationOptions, io: AppServerIo): Promise<Outcome> {
  const authId = o.auth.id;
  let book: ThreadBook | null = null;
  const early: [string, unknown][] = [];
  let primaryDone: Outcome | null = null;
  let settle: NodeJS.Timeout | null = null;
  let finish!: (status: Outcome) => void;
  const finished = new Promise<Outcome>((r) => (finish = r));
  const approvals = o.approvals
    ? new CodexApprovals(
        o.approvals.asker,
        o.approvals.origin,
        (id) => book?.role(id) ?? 'unknown',
        o.auth.signal,
      )
    : null;

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
    approvals?.learn(method, raw);
    const learned = book.learn(method, params);
    noteDelegations(o.host, o.auth.principal, book, method, params, learned, (threadId) =>
      peer.request('thread/read', { threadId }),
    );
    for (const t of learned) {
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

  const peer = new RpcPeer(io.output, io.input, {
    onRequest: async (method, raw) => {
      const params = wireParams(raw);
      if (method === 'item/tool/call') return onToolCall(params);
      if (approvals?.handles(method)) return approvals.answer(method, raw);
      o.emit({
        event: 'declined',
        threadId: typeof params?.threadId === 'string' ? params.threadId : null,
        method,
      });
      const declined = declineWords(method);
      if (declined !== undefined) return declined;
      throw new MethodNotFound(
        `agentteam's app-server driver does not handle ${JSON.stringify(method.slice(0, 128))}`,
      );
    },
    onNotify,
    onBadLine: (why) => o.diag('codex_app_server', { authorizationId: authId, problem: why }),
  });
  const revoked = new Promise<Outcome>((resolve) => {
    if (o.auth.signal.aborted) resolve({ status: 'revoked', error: 'the authorization ended' });
    o.auth.signal.addEventListener(
      'abort',
      () => resolve({ status: 'revoked', error: 'the authorization ended' }),
      { once: true },
    );
  });
  void io.exited.then(() => peer.close(new Error('the app server exited')));

  const drive = async (): Promise<Outcome> => {
    await peer.request('initialize', {
      clientInfo: { name: 'agentteam', title: 'AgentTeam', version: '0.1.0' },
      capabilities: { experimentalApi: true },
    });
    peer.notify('initialized');
    const { primary, resumed } = await openThread(peer, o);
    book = new ThreadBook(primary);
    o.diag('codex_thread', {
      authorizationId: authId,
      threadId: primary,
      role: 'primary',
      parentThreadId: null,
    });
    o.emit({ event: 'thread', threadId: primary, role: 'primary', parentId: null });
    for (const [m, p] of early.splice(0)) onNotify(m, p);
    await o.onPrimary?.(primary, resumed);
    await peer.request('turn/start', {
      threadId: primary,
      input: [{ type: 'text', text: o.prompt }],
    });
    return finished;
  };

  let result: Outcome;
  try {
    result = await Promise.race([drive(), io.exited, revoked]);
  } catch (err) {
    result = { status: 'failed', error: (err as Error).message };
  }
  if (settle) clearTimeout(settle);
  return result;
}

/**
 * The primary thread: `thread/resume` of the one asked for (its dynamic
 * tools are the ones it was started with), else, or when the app server no
 * longer has it, `thread/start`.
 */
async function openThread(
  peer: RpcPeer,
  o: ConversationOptions,
): Promise<{ primary: string; resumed: boolean }> {
  if (o.resume) {
    try {
      const back = await peer.request<{ thread?: { id?: unknown } }>('thread/resume', {
        threadId: o.resume,
        cwd: o.cwd ?? undefined,
        developerInstructions: o.developerInstructions,
        excludeTurns: true,
      });
      if (back?.thread?.id === o.resume) return { primary: o.resume, resumed: true };
      o.diag('codex_app_server', {
        authorizationId: o.auth.id,
        problem: 'thread/resume answered another thread',
      });
    } catch (err) {
      o.diag('codex_app_server', {
        authorizationId: o.auth.id,
        problem: `thread/resume ${o.resume}: ${(err as Error).message}`,
      });
    }
  }
  const started = await peer.request<{ thread?: { id?: unknown } }>('thread/start', {
    cwd: o.cwd ?? undefined,
    developerInstructions: o.developerInstructions,
    dynamicTools: dynamicTools(o.host, o.auth),
  });
  const primary = started?.thread?.id;
  if (typeof primary !== 'string' || primary.length === 0)
    throw new Error('thread/start returned no thread id');
  return { primary, resumed: false };
}
