import { randomUUID } from 'node:crypto';
import { STDIO_LIMITS, argumentsProblem } from '../../catalog/stdio-tools.js';
import type { CallContext } from '../tools/registry.js';
import type { ToolAnswer } from '../results/tool-answer.js';
import type { StdioCall } from '../../catalog/operator/stdio-call.js';
import type { CallOutcome, ClientToolSpec, Delegation, StdioReply } from './types.js';

/**
 * What the broker does differently for the tools of a stdio child: the
 * admission of a call (arguments within the wire bounds, at most 16 pending,
 * no queue behind them) with the identity the app must copy into its result,
 * and the agent-facing outcome of the app's answer.
 */

/** The call's identity, or the outcome that refuses it at once. */
export function admitStdioCall(
  tool: ClientToolSpec,
  args: Record<string, unknown>,
  ctx: CallContext,
  delegation: Delegation | null,
  held: number,
): { ok: true; call: StdioCall } | { ok: false; outcome: CallOutcome } {
  const tooBig = argumentsProblem(args);
  if (tooBig)
    return {
      ok: false,
      outcome: { ok: false, code: 'client_tool_payload_limit', message: tooBig },
    };
  if (held >= STDIO_LIMITS.pending_calls) {
    return {
      ok: false,
      outcome: {
        ok: false,
        code: 'client_tool_busy',
        message: `the app already holds ${STDIO_LIMITS.pending_calls} pending calls; retry when one finishes`,
      },
    };
  }
  const pr = ctx.principal;
  // The caller's own run: a turn the daemon launched names its session (a stdio session, or the
  // conversation it answers) and itself; an `agentteam run` lease the ids the daemon minted for it.
  return {
    ok: true,
    call: {
      session_id: pr.sessionId,
      run_id: pr.runId,
      call_id: randomUUID(),
      task_id: delegation?.task_id ?? null,
      subagent_id: delegation?.subagent_id ?? null,
      // A stdio tool always has a deadline (min_timeout_ms is 1000).
      timeout_ms: tool.timeoutMs ?? 0,
    },
  };
}

/** The app's status, text and structured JSON as an answer for the result gate: one text block, then the structured JSON. */
export function replyAnswer(body: StdioReply): ToolAnswer {
  return {
    content: [{ type: 'text', text: body.text }],
    ...(body.structured ? { structured: body.structured } : {}),
    isError: body.status === 'error',
  };
}
