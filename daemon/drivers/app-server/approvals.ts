import type { NativeAnswer, NativeAsk } from '../../approvals/ask.js';
import type { AskOrigin } from '../../approvals/lookup.js';
import type { ThreadRole } from '../../http/child-gate.js';

/** Where the driver sends Codex's approval requests: the daemon's one inbox (NativeApprovals). */
export interface NativeAsker {
  ask(ask: NativeAsk, signal?: AbortSignal): Promise<NativeAnswer>;
}

/** Approval requests the app server may send, and the words of each for yes-once, yes-for-the-session and no. */
const METHODS: ReadonlyMap<
  string,
  { kind: NativeAsk['kind']; words: readonly [unknown, unknown, unknown] }
> = new Map([
  [
    'item/commandExecution/requestApproval',
    { kind: 'command', words: ['accept', 'acceptForSession', 'decline'] },
  ],
  [
    'item/fileChange/requestApproval',
    { kind: 'file_change', words: ['accept', 'acceptForSession', 'decline'] },
  ],
  // The legacy names Codex 0.171 still defines (ReviewDecision).
  [
    'execCommandApproval',
    { kind: 'command', words: ['approved', 'approved_for_session', 'denied'] },
  ],
  [
    'applyPatchApproval',
    { kind: 'file_change', words: ['approved', 'approved_for_session', 'denied'] },
  ],
] as const);

/** Declined without asking anyone: what the driver answers when no inbox is wired (each method in its own words). */
export function declineWords(method: string): unknown {
  const m = METHODS.get(method);
  return m === undefined ? undefined : { decision: m.words[2] };
}

/** File-change items remembered for their diff (Codex sends the diff in item/started, not in the approval request). */
const ITEMS_KEPT = 64;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Codex's command and file-change approvals in a headless run: each becomes
 * a request in the daemon's inbox (who: the agent, runtime, lease, turn,
 * Codex's thread and whether that thread is a delegated child; what: the
 * command, its working directory, the diff), and the decision is answered
 * back in the method's own words: accept, accept for the session (the rest
 * of the turn: Codex keeps that cache per session, and a delivered turn is
 * one session run) or decline. The app server is not trusted: every field
 * is read as unknown.
 */
export class CodexApprovals {
  private readonly diffs = new Map<string, string>();

  constructor(
    private readonly asker: NativeAsker,
    private readonly origin: AskOrigin,
    private readonly role: (threadId: string) => ThreadRole,
    private readonly signal: AbortSignal,
  ) {}

  handles(method: string): boolean {
    return METHODS.has(method);
  }

  /** Reads a notification: remembers a file change's diff by its item id. */
  learn(method: string, raw: unknown): void {
    if (method !== 'item/started' && method !== 'item/completed') return;
    const item = obj(obj(raw).item);
    const id = str(item.id);
    if (item.type !== 'fileChange' || id === undefined || !Array.isArray(item.changes)) return;
    if (this.diffs.size >= ITEMS_KEPT) this.diffs.delete(this.diffs.keys().next().value!);
    this.diffs.set(id, item.changes.map((c) => changeText(str(obj(c).path), obj(c))).join('\n'));
  }

  async answer(method: string, raw: unknown): Promise<unknown> {
    const m = METHODS.get(method)!;
    const p = obj(raw);
    const threadId = str(p.threadId) ?? str(p.conversationId) ?? null;
    const command = Array.isArray(p.command)
      ? p.command.map((a) => String(a)).join(' ')
      : str(p.command);
    const diff =
      m.kind === 'file_change'
        ? p.fileChanges !== undefined
          ? Object.entries(obj(p.fileChanges))
              .map(([path, c]) => changeText(path, obj(c)))
              .join('\n')
          : this.diffs.get(str(p.itemId) ?? '')
        : undefined;
    const ask: NativeAsk = {
      ...this.origin,
      threadId,
      subagentId: null,
      delegated: threadId === null || this.role(threadId) !== 'primary',
      kind: m.kind,
      ...(command !== undefined ? { command } : {}),
      ...(str(p.cwd) !== undefined ? { cwd: str(p.cwd)! } : {}),
      ...(diff !== undefined ? { diff } : {}),
      ...(str(p.reason) !== undefined ? { reason: str(p.reason)! } : {}),
    };
    const a = await this.asker.ask(ask, this.signal);
    if (a.decision === 'approved') return { decision: m.words[a.scope === 'turn' ? 1 : 0] };
    return { decision: m.words[2] };
  }
}

/** One file's change as text: its path and kind, then the diff (v2) or content (legacy add). */
function changeText(path: string | undefined, c: Obj): string {
  const kind = obj(c.kind).type ?? c.type;
  const body = str(c.diff) ?? str(c.unified_diff) ?? str(c.content) ?? '';
  return `${String(kind ?? 'change')} ${path ?? '?'}\n${body}`;
}
