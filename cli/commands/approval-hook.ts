import { randomUUID } from 'node:crypto';
import { printError, writeOut } from '../exec/output.js';
import { readCredentials } from '../exec/call.js';
import { readStdin } from '../stdin.js';

/**
 * `agentteam approval hook`: Claude Code's `PermissionRequest` hook, as the
 * Claude driver configures it. Reads the hook's JSON on stdin (at most
 * 1 MiB), files the request in the approval inbox through the runtime's own
 * credentials, asks again every time a poll answers `pending` (one key, so
 * the request is filed once) and prints the decision in the form Claude Code
 * reads: allow, or deny with the reason. Fails closed: a daemon unreachable
 * for 60 s, a refusal or a missing credential is a denial with its reason.
 * Bad input exits 2 (Claude Code takes that as a denial, with stderr as the
 * reason), the usage error envelope on stdout as every refusal has.
 */

const MAX_INPUT = 1024 * 1024;
/** Each poll is held by the daemon for at most 25 s; a silent connection is dropped after this. */
const POLL_TIMEOUT_MS = 40_000;
const UNREACHABLE_MS = 60_000;
const RETRY_MS = 1_000;

interface HookInput {
  readonly tool_name: string;
  readonly tool_input?: unknown;
  readonly cwd?: unknown;
  readonly session_id?: unknown;
  readonly agent_id?: unknown;
  readonly permission_suggestions?: unknown;
}

type Answer =
  | { decision: 'approved'; scope: 'once' | 'turn'; id: string }
  | { decision: 'denied' | 'expired' | 'cancelled'; reason: string; id: string };

/** Bad input: the reason on stderr (what Claude Code shows), the usage envelope on stdout as for every refusal, exit 2. */
function fail(message: string): number {
  writeOut(2, `agentteam approval hook: ${message}\n`);
  return printError({ code: 'usage', message });
}

function parse(bytes: Buffer): HookInput | string {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'stdin is not one JSON value';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'stdin must be a JSON object';
  const input = value as Record<string, unknown>;
  if (input.hook_event_name !== 'PermissionRequest')
    return `this hook answers PermissionRequest events, not ${JSON.stringify(input.hook_event_name ?? null)}`;
  if (typeof input.tool_name !== 'string' || input.tool_name === '')
    return 'the hook input has no tool_name';
  return input as unknown as HookInput;
}

function print(decision: Record<string, unknown>): number {
  const out = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
  writeOut(1, `${JSON.stringify(out)}\n`);
  return 0;
}

function deny(message: string): number {
  return print({ behavior: 'deny', message: `agentteam: ${message}` });
}

/**
 * "Approve for the turn": the rules Claude Code itself suggested for "don't
 * ask again", kept for this session only. A delivered turn is one Claude
 * process, so the session ends with the turn.
 */
function forTheTurn(suggestions: unknown): unknown[] {
  if (!Array.isArray(suggestions)) return [];
  return suggestions
    .filter(
      (s) =>
        typeof s === 'object' && s !== null && typeof (s as { type?: unknown }).type === 'string',
    )
    .map((s) => ({ ...(s as object), destination: 'session' }));
}

function printAnswer(answer: Answer, input: HookInput): number {
  if (answer.decision === 'approved') {
    const rules = answer.scope === 'turn' ? forTheTurn(input.permission_suggestions) : [];
    return print({ behavior: 'allow', ...(rules.length > 0 ? { updatedPermissions: rules } : {}) });
  }
  // The reason starts with the outcome (`denied by human:ada: not now`, `expired: ...`).
  return deny(`${answer.reason} (${answer.id})`);
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export async function main(_opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const bytes = await readStdin(MAX_INPUT);
  if (bytes === null) return fail(`the hook input is larger than ${MAX_INPUT} bytes`);
  const input = parse(bytes);
  if (typeof input === 'string') return fail(input);
  const body = JSON.stringify({
    key: randomUUID(),
    toolName: input.tool_name,
    toolInput: input.tool_input ?? null,
    cwd: text(input.cwd),
    sessionId: text(input.session_id),
    subagentId: text(input.agent_id),
  });
  const { postJson } = await import('../exec/request.js');
  let lastContact = Date.now();
  for (;;) {
    // Read every time: the daemon rotates the token file in place while the request waits.
    const creds = readCredentials(process.env);
    if (!creds.ok) return deny(creds.message);
    const res = await postJson(
      `${creds.baseUrl}/native-approval`,
      creds.token,
      body,
      POLL_TIMEOUT_MS,
    );
    if (!res.ok) {
      if (Date.now() - lastContact >= UNREACHABLE_MS)
        return deny(`the daemon could not be reached for ${UNREACHABLE_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, RETRY_MS));
      continue;
    }
    lastContact = Date.now();
    let envelope: {
      ok?: boolean;
      data?: { status?: string; answer?: Answer };
      error?: { message?: string };
    };
    try {
      envelope = JSON.parse(res.body);
    } catch {
      return deny(`the daemon answered HTTP ${res.status} without a JSON envelope`);
    }
    if (envelope.ok !== true)
      return deny(envelope.error?.message ?? `the daemon refused the request (HTTP ${res.status})`);
    const data = envelope.data;
    if (data?.status === 'pass') return 0; // not a delivered turn: Claude Code asks its own user
    if (data?.status === 'decided' && data.answer) return printAnswer(data.answer, input);
    if (data?.status !== 'pending') return deny('the daemon answered without a decision');
  }
}
