/** The runtime kinds `agentteam run --runtime` and profile agents may name. Data only: the CLI imports it too. */
export const RUNTIME_KINDS = ['claude', 'codex', 'opencode', 'generic'] as const;

export type RuntimeKind = (typeof RUNTIME_KINDS)[number];

export function isRuntimeKind(v: unknown): v is RuntimeKind {
  return typeof v === 'string' && (RUNTIME_KINDS as readonly string[]).includes(v);
}
