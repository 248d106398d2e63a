/**
 * Reads a Claude Code or Codex session transcript (JSONL) and pairs each tool
 * call with its result, so the tokens of every agentteam tool's results can
 * be attributed to that tool.
 *
 * Claude Code: `assistant` lines carry `message.content[]` blocks of type
 * `tool_use` ({id, name, input}); `user` lines carry `tool_result` blocks
 * ({tool_use_id, content: string | [{type:"text", text}]}).
 * Codex rollouts: `response_item` lines whose payload is a `function_call`
 * ({call_id, name, arguments}) or `custom_tool_call`, answered by a
 * `function_call_output` / `custom_tool_call_output` ({call_id, output});
 * `event_msg` `mcp_tool_call_end` ({call_id, invocation: {server, tool},
 * result}) is used when no output item exists for that call. Older rollouts
 * without the envelope carry the same items at top level.
 */

type SessionFormat = 'claude' | 'codex' | 'unknown';

interface ToolResult {
  /** The agentteam tool (raw MCP name, or `exec <domain> <action>`), or null for any other tool. */
  readonly tool: string | null;
  readonly text: string;
}

export interface ParsedSession {
  readonly format: SessionFormat;
  readonly lines: number;
  readonly badLines: number;
  readonly results: ToolResult[];
}

type Json = Record<string, unknown>;

const SHELL_TOOLS = new Set([
  'Bash',
  'bash',
  'shell',
  'shell_command',
  'exec_command',
  'local_shell',
  'container.exec',
]);
const EXEC_RE = /\bagentteam\s+exec\s+([a-z][a-z0-9-]*)\s+([a-z][a-z0-9-]*)/;

/** The agentteam tool a runtime-visible call names, or null. */
function agentteamTool(name: string, input: unknown): string | null {
  const mcp = /^(?:mcp__agentteam__|mcp_agentteam_|agentteam__)([a-z][a-z0-9_]*)$/.exec(name);
  if (mcp) return mcp[1]!;
  if (SHELL_TOOLS.has(name)) {
    const i = (typeof input === 'string' ? safeJson(input) : input) as Json | null;
    const cmd = i?.command ?? i?.cmd ?? (i?.action as Json | undefined)?.command;
    const line = Array.isArray(cmd) ? cmd.join(' ') : typeof cmd === 'string' ? cmd : '';
    const m = EXEC_RE.exec(line);
    if (m) return `exec ${m[1]} ${m[2]}`;
  }
  return null;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The text a result put into the context: strings as they are, text blocks joined, anything else as JSON. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) =>
        b && typeof b === 'object' && typeof (b as Json).text === 'string'
          ? ((b as Json).text as string)
          : b && typeof b === 'object' && (b as Json).type === 'image'
            ? ''
            : JSON.stringify(b),
      )
      .join('\n');
  }
  if (content && typeof content === 'object') {
    const c = content as Json;
    if ('content' in c) return textOf(c.content);
    if ('Ok' in c) return textOf(c.Ok);
    if ('Err' in c) return textOf(c.Err);
    return JSON.stringify(c);
  }
  return content === undefined || content === null ? '' : String(content);
}

/**
 * How deeply one transcript line may nest (objects and arrays together).
 * Real transcripts stay near ten levels; a line nested thousands deep would
 * exhaust the stack of the parser or of the walk over its content.
 */
export const MAX_LINE_DEPTH = 128;

/** A transcript this command will not read; its message is one line. */
export class SessionError extends Error {
  override name = 'SessionError';
}

/** True when `line`, read as JSON, nests deeper than `max`: one pass, strings skipped, nothing allocated. */
function nestsDeeperThan(line: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export function parseSession(text: string): ParsedSession {
  const calls = new Map<string, { name: string; input: unknown }>();
  const outputs: { id: string; text: string }[] = [];
  const fallbacks = new Map<string, { tool: string | null; text: string }>();
  let claude = 0;
  let codex = 0;
  let lines = 0;
  let badLines = 0;
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    lineNo++;
    if (raw.trim() === '') continue;
    lines++;
    if (nestsDeeperThan(raw, MAX_LINE_DEPTH)) {
      throw new SessionError(
        `line ${lineNo} nests deeper than ${MAX_LINE_DEPTH} levels of JSON; this is not a transcript token analyze reads`,
      );
    }
    const obj = safeJson(raw) as Json | null;
    if (!obj || typeof obj !== 'object') {
      badLines++;
      continue;
    }
    const message = obj.message as Json | undefined;
    if (
      (obj.type === 'assistant' || obj.type === 'user') &&
      message &&
      Array.isArray(message.content)
    ) {
      claude++;
      for (const b of message.content as Json[]) {
        if (b?.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string')
          calls.set(b.id, { name: b.name, input: b.input });
        if (b?.type === 'tool_result' && typeof b.tool_use_id === 'string')
          outputs.push({ id: b.tool_use_id, text: textOf(b.content) });
      }
      continue;
    }
    const item = (obj.type === 'response_item' || obj.type === 'event_msg' ? obj.payload : obj) as
      | Json
      | undefined;
    if (!item || typeof item !== 'object') continue;
    const id = typeof item.call_id === 'string' ? item.call_id : null;
    switch (item.type) {
      case 'function_call':
      case 'custom_tool_call':
        codex++;
        // Current Codex records an MCP (or app-server dynamic) tool as a name inside its namespace (`mcp__agentteam` + `message_send`).
        if (id && typeof item.name === 'string') {
          const name =
            typeof item.namespace === 'string' && item.namespace.length > 0
              ? `${item.namespace}__${item.name}`
              : item.name;
          calls.set(id, { name, input: item.arguments ?? item.input });
        }
        break;
      case 'local_shell_call':
        codex++;
        if (id) calls.set(id, { name: 'local_shell', input: item.action });
        break;
      case 'function_call_output':
      case 'custom_tool_call_output':
        codex++;
        if (id) outputs.push({ id, text: textOf(item.output) });
        break;
      case 'mcp_tool_call_end': {
        codex++;
        const inv = item.invocation as Json | undefined;
        if (id && inv)
          fallbacks.set(id, {
            tool: inv.server === 'agentteam' && typeof inv.tool === 'string' ? inv.tool : null,
            text: textOf(item.result),
          });
        break;
      }
      default:
        break;
    }
  }
  const results: ToolResult[] = [];
  const answered = new Set<string>();
  for (const o of outputs) {
    answered.add(o.id);
    const call = calls.get(o.id);
    results.push({ tool: call ? agentteamTool(call.name, call.input) : null, text: o.text });
  }
  for (const [id, f] of fallbacks) if (!answered.has(id)) results.push(f);
  const format: SessionFormat =
    claude === 0 && codex === 0 ? 'unknown' : claude >= codex ? 'claude' : 'codex';
  return { format, lines, badLines, results };
}
