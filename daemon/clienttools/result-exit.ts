import type { ErrorCode } from '../../catalog/errors.js';
import type { CallContext } from '../tools/registry.js';
import { errorResult } from '../tools/tool-result.js';
import type { CallOutcome } from './types.js';
import type { ResultGate } from '../results/gate.js';
import type { ToolAnswer } from '../results/tool-answer.js';
import { noteFailure } from '../audit/note.js';

/**
 * An app's answer made into what the agent will read, when it arrives and
 * before it settles the call: the one result gate (masking, credential
 * fields, the 64 KiB bound with spills) runs here and nowhere else for
 * client tools. Throws validation_failed when the gate refuses the answer;
 * the call then stays pending so the app can answer again. An app's error
 * reaches the agent as every tool error does, the error envelope with the
 * app's own code (tool-frame.ts), bounded the same way.
 */
export function answerOutcome(
  gate: ResultGate,
  answer: ToolAnswer | { readonly code: string; readonly message: string },
): CallOutcome {
  if ('code' in answer)
    return { ok: true, frame: gate.toolError(answer), isError: true, code: answer.code };
  return { ok: true, frame: gate.toolAnswer(answer), isError: answer.isError };
}

/** The one place a client tool's result leaves the daemon for the agent, as a serialized MCP CallToolResult. */
export function clientResultFrame(
  outcome: CallOutcome,
  ctx: CallContext,
  gate: ResultGate,
): string {
  if (!outcome.ok || outcome.isError)
    noteFailure(ctx, outcome.ok ? (outcome.code ?? 'upstream_error') : outcome.code);
  if (outcome.ok) return outcome.frame;
  // The daemon's own failures (timeout, no_client, cancelled, ...): short messages, masked all the same.
  return errorResult({ code: outcome.code, message: gate.maskText(outcome.message) });
}

/** A failure of the daemon's own before a call reaches an app, in the one tool-error format, noted as the call's outcome. */
export function clientToolError(ctx: CallContext, code: ErrorCode, message: string): string {
  noteFailure(ctx, code);
  return errorResult({ code, message });
}
