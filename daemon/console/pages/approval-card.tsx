import type { ApprovalRow } from './approvals.js';

/** A masked, byte-bounded text of a runtime's own request, as the inbox keeps it. */
interface Bounded {
  readonly text: string;
  readonly cut: { readonly keptBytes: number; readonly totalBytes: number } | null;
}

/** Who asked and what, for a runtime's own request (Codex's approvals, Claude Code's permission prompt). */
export interface NativeView {
  readonly runtime: string;
  readonly turnId: string | null;
  readonly threadId: string | null;
  readonly subagentId: string | null;
  readonly delegated: boolean;
  readonly kind: 'command' | 'file_change' | 'tool';
  readonly view: { readonly [K in (typeof FIELDS)[number][0]]?: Bounded };
  readonly scope: 'once' | 'turn' | null;
}

/** The parts of a request's view, in the order the card shows them. */
const FIELDS = [
  ['command', 'Command'],
  ['cwd', 'In'],
  ['toolName', 'Tool'],
  ['toolInput', 'Input'],
  ['diff', 'Change'],
  ['reason', 'Reason given'],
] as const;

const KIND = {
  command: 'a command',
  file_change: 'a file change',
  tool: 'a tool call',
} as const;

function Part(props: { label: string; value: Bounded }) {
  return (
    <div data-part={props.label}>
      <span class="mute">{props.label}</span>
      <pre>{props.value.text}</pre>
      {props.value.cut ? (
        <span class="mute">
          (first {props.value.cut.keptBytes} of {props.value.cut.totalBytes} bytes)
        </span>
      ) : null}
    </div>
  );
}

/**
 * One waiting request on the Approvals page: who asked (the agent, and for
 * a runtime's own request its runtime, turn, thread or subagent, and
 * whether a delegated child asked), what (masked and bounded by the
 * inbox), since when, and the time left before it is denied for want of
 * an answer (counted down by the console's script from `data-until`).
 */
export function ApprovalCard(props: { a: ApprovalRow; form: unknown }) {
  const a = props.a;
  const n = a.native ?? null;
  return (
    <section
      class="card"
      data-approval={a.id}
      data-native={n ? n.runtime : undefined}
      aria-label={a.title}
    >
      <strong>{a.title}</strong>{' '}
      <span class="mute">
        from {a.requestedBy} on {a.serverId}
        {n ? `, runtime ${n.runtime} (${KIND[n.kind]})` : ''}
      </span>
      {n ? (
        <p class="mute" data-who>
          {n.turnId ? <>turn {n.turnId} </> : null}
          {n.threadId ? <>thread {n.threadId} </> : null}
          {n.subagentId ? <>subagent {n.subagentId} </> : null}
          {n.delegated ? (
            <strong class="bad" data-delegated>
              asked by a delegated child
            </strong>
          ) : null}
        </p>
      ) : null}
      <p class="mute">
        waiting since{' '}
        <time datetime={a.createdAt} data-since={a.createdAt}>
          {a.createdAt}
        </time>
        ; denied if nobody answers in{' '}
        <time datetime={a.expiresAt} data-until={a.expiresAt}>
          {a.expiresAt}
        </time>
      </p>
      {n ? (
        FIELDS.map(([key, label]) => {
          const value = n.view[key];
          return value ? <Part label={label} value={value} /> : null;
        })
      ) : (
        <pre>{a.detail}</pre>
      )}
      {props.form}
    </section>
  );
}
