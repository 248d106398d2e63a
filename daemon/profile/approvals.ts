/** The kinds of request a runtime asks a person about: a shell command, a file change, a tool call. */
const NATIVE_KINDS = ['command', 'file_change', 'tool'] as const;
export type NativeKind = (typeof NATIVE_KINDS)[number];

/**
 * An agent's `approvals` block: what becomes of its runtime's own permission
 * requests in a headless turn. `inbox` lists the kinds a person is asked
 * about (the rest are denied without asking); `allowCommands` and
 * `denyCommands` are command patterns answered without asking (deny wins);
 * `allowReadOnlyTools` lets through a tool whose trusted annotation says it
 * only reads; `deadlineSeconds` is how long a request waits before it
 * expires and the runtime is told no.
 */
export interface AgentApprovals {
  readonly inbox: readonly NativeKind[];
  readonly allowCommands: readonly string[];
  readonly denyCommands: readonly string[];
  readonly allowReadOnlyTools: boolean;
  readonly deadlineSeconds: number;
}

/** Ten minutes: how long a runtime's request waits for a person when the profile says nothing. */
const DEFAULT_DEADLINE_S = 600;
const MAX_DEADLINE_S = 24 * 3600;
const MAX_PATTERNS = 64;
const MAX_PATTERN_BYTES = 512;

export const DEFAULT_APPROVALS: AgentApprovals = {
  inbox: NATIVE_KINDS,
  allowCommands: [],
  denyCommands: [],
  allowReadOnlyTools: false,
  deadlineSeconds: DEFAULT_DEADLINE_S,
};

/** Why an approvals block is refused; parse.ts turns it into a ProfileError. */
export class ApprovalsConfigError extends Error {
  override name = 'ApprovalsConfigError';
}

function patterns(v: unknown, where: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_PATTERNS)
    throw new ApprovalsConfigError(`${where} must be an array of at most ${MAX_PATTERNS} patterns`);
  return v.map((p, i) => {
    if (typeof p !== 'string' || p.trim() === '' || Buffer.byteLength(p) > MAX_PATTERN_BYTES)
      throw new ApprovalsConfigError(
        `${where}[${i}] must be a non-empty string of at most ${MAX_PATTERN_BYTES} bytes`,
      );
    return p;
  });
}

export function parseApprovals(v: unknown, where: string): AgentApprovals {
  if (v === undefined) return DEFAULT_APPROVALS;
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ApprovalsConfigError(`${where} must be an object`);
  const o = v as Record<string, unknown>;
  let inbox: NativeKind[] = [...NATIVE_KINDS];
  if (o.inbox !== undefined) {
    if (!Array.isArray(o.inbox))
      throw new ApprovalsConfigError(
        `${where}.inbox must be an array of ${NATIVE_KINDS.join(', ')}`,
      );
    inbox = o.inbox.map((k, i) => {
      if (!(NATIVE_KINDS as readonly unknown[]).includes(k))
        throw new ApprovalsConfigError(
          `${where}.inbox[${i}] must be one of ${NATIVE_KINDS.join(', ')}`,
        );
      return k as NativeKind;
    });
  }
  const ro = o.allowReadOnlyTools ?? false;
  if (typeof ro !== 'boolean')
    throw new ApprovalsConfigError(`${where}.allowReadOnlyTools must be true or false`);
  const d = o.deadlineSeconds ?? DEFAULT_DEADLINE_S;
  if (!Number.isInteger(d) || (d as number) < 1 || (d as number) > MAX_DEADLINE_S)
    throw new ApprovalsConfigError(
      `${where}.deadlineSeconds must be an integer from 1 to ${MAX_DEADLINE_S}`,
    );
  return {
    inbox,
    allowCommands: patterns(o.allowCommands, `${where}.allowCommands`),
    denyCommands: patterns(o.denyCommands, `${where}.denyCommands`),
    allowReadOnlyTools: ro,
    deadlineSeconds: d as number,
  };
}
