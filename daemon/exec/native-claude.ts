import type { NativeAsk } from '../approvals/ask.js';
import type { AskOrigin } from '../approvals/lookup.js';
import { ExecError } from '../errors/exec-error.js';

/** One permission request as `agentteam approval hook` sends it (Claude Code's hook input, renamed). */
export interface HookRequest {
  /** The hook's idempotency key: one per prompt, the same on every poll. */
  readonly key: string;
  readonly toolName: string;
  readonly toolInput: unknown;
  readonly cwd: string | null;
  /** Claude Code's session: the conversation the request belongs to. */
  readonly sessionId: string | null;
  /** The subagent's `agent_id` when a subagent asks: recorded, never used to authorize. */
  readonly subagentId: string | null;
}

const KEY = /^[A-Za-z0-9_-]{8,128}$/;
const FIELDS = new Set(['key', 'toolName', 'toolInput', 'cwd', 'sessionId', 'subagentId']);

function invalid(path: string, message: string): ExecError {
  return new ExecError('validation_failed', 'the permission request is not shaped as expected', {
    details: [{ path, message }],
  });
}

function optionalText(body: Record<string, unknown>, name: string, max: number): string | null {
  const value = body[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max)
    throw invalid(`/${name}`, `must be a string of at most ${max} characters`);
  return value;
}

/** Checks the body strictly: known fields, a well-formed key, bounded texts. */
export function parseHookRequest(value: unknown): HookRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('', 'must be an object');
  const body = value as Record<string, unknown>;
  for (const name of Object.keys(body))
    if (!FIELDS.has(name)) throw invalid(`/${name}`, 'is not a known field');
  if (typeof body.key !== 'string' || !KEY.test(body.key))
    throw invalid('/key', 'must be 8 to 128 letters, digits, _ or -');
  const toolName = optionalText(body, 'toolName', 256);
  if (!toolName) throw invalid('/toolName', 'is required');
  return {
    key: body.key,
    toolName,
    toolInput: body.toolInput ?? null,
    cwd: optionalText(body, 'cwd', 4096),
    sessionId: optionalText(body, 'sessionId', 256),
    subagentId: optionalText(body, 'subagentId', 256),
  };
}

const FILE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A file tool's change as a short diff-like text (the inbox masks and bounds it). */
function fileChange(tool: string, input: Record<string, unknown>): string {
  const path = text(input.file_path) ?? text(input.notebook_path) ?? '(unnamed file)';
  const lines = [`--- ${path}`, `+++ ${path}`];
  const minus = (s: string | undefined) => s?.split('\n').map((l) => `-${l}`) ?? [];
  const plus = (s: string | undefined) => s?.split('\n').map((l) => `+${l}`) ?? [];
  const edits =
    tool === 'MultiEdit' && Array.isArray(input.edits)
      ? (input.edits as Record<string, unknown>[])
      : [input];
  for (const edit of edits) {
    lines.push(...minus(text(edit.old_string)), ...plus(text(edit.new_string)));
    lines.push(...plus(text(edit.content) ?? text(edit.new_source)));
  }
  return lines.join('\n');
}

/**
 * The inbox's request for a Claude permission prompt: Bash is a command,
 * the file tools a file change, anything else (MCP tools, web fetches) a
 * tool call with its input. A subagent's request is a delegated one.
 */
export function claudeAsk(req: HookRequest, who: AskOrigin): NativeAsk {
  const input =
    typeof req.toolInput === 'object' && req.toolInput !== null && !Array.isArray(req.toolInput)
      ? (req.toolInput as Record<string, unknown>)
      : {};
  const base = {
    ...who,
    threadId: req.sessionId,
    subagentId: req.subagentId,
    delegated: req.subagentId !== null,
    ...(req.cwd !== null ? { cwd: req.cwd } : {}),
  };
  const reason = text(input.description);
  if (req.toolName === 'Bash' && text(input.command) !== undefined)
    return {
      ...base,
      kind: 'command',
      command: text(input.command)!,
      toolName: req.toolName,
      ...(reason ? { reason } : {}),
    };
  if (FILE_TOOLS.has(req.toolName))
    return {
      ...base,
      kind: 'file_change',
      diff: fileChange(req.toolName, input),
      toolName: req.toolName,
    };
  return { ...base, kind: 'tool', toolName: req.toolName, toolInput: req.toolInput };
}
