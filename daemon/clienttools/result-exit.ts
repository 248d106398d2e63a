import type { CallContext } from '../tools/registry.js';
import type { CallOutcome } from './types.js';
import type { ResultGate } from '../results/gate.js';
import { noteFailure } from '../audit/note.js';

/** A client tool's text block beyond this many UTF-8 bytes keeps head and tail; the whole is spilled. */
export const CLIENT_TEXT_LIMIT_BYTES = 64 * 1024;

/**
 * The one place a client tool's result leaves the daemon for the agent, as a
 * serialized MCP CallToolResult. The app's content blocks pass as they are
 * (text and images alike) except for the daemon's result gate, applied here
 * and nowhere else for client tools: secrets masked in every string, long
 * text blocks bounded (head + tail, the whole spilled). Failures become tool
 * errors "<code>: <message>".
 */
export function clientResultFrame(outcome: CallOutcome, ctx: CallContext, gate: ResultGate): string {
  if (!outcome.ok || outcome.isError === true) noteFailure(ctx, outcome.ok ? 'upstream_error' : outcome.code);
  if (outcome.ok) {
    const isError = outcome.isError === true;
    // The one gate: secrets masked in every string, long text blocks bounded (head + tail, the whole spilled).
    const blocks = gate.content(outcome.content, CLIENT_TEXT_LIMIT_BYTES);
    if (!outcome.structured) return `{"content":${JSON.stringify(blocks)},"isError":${isError}}`;
    // A stdio app's structured JSON may be any value; MCP's structuredContent
    // must be an object, so anything else reaches the agent as a second text block.
    const v = gate.maskJson(outcome.structured.value);
    const json = JSON.stringify(v);
    const content = [...blocks, { type: 'text', text: json }];
    const asObject = v !== null && typeof v === 'object' && !Array.isArray(v);
    return JSON.stringify({ content, ...(asObject ? { structuredContent: v } : {}), isError });
  }
  return toolErrorFrame(outcome.code, gate.maskText(outcome.message));
}

export function toolErrorFrame(code: string, message: string): string {
  return JSON.stringify({ content: [{ type: 'text', text: `${code}: ${message}` }], isError: true });
}
