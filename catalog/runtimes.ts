/** The runtime kinds `agentteam run --runtime` and profile agents may name. Data only: the CLI imports it too. */
/**
 * `codex-app-server`: the daemon drives `codex app-server` over its JSON-RPC
 * protocol and offers agentteam's tools as that server's dynamic tools.
 */
export const RUNTIME_KINDS = [
  'claude',
  'codex',
  'codex-app-server',
  'opencode',
  'generic',
] as const;

export type RuntimeKind = (typeof RUNTIME_KINDS)[number];

export function isRuntimeKind(v: unknown): v is RuntimeKind {
  return typeof v === 'string' && (RUNTIME_KINDS as readonly string[]).includes(v);
}
