import type { ServerResponse } from 'node:http';
import { responsesReply, responsesText, text } from './model-standins.js';

/** One tool call a two-thread Codex stand-in asked a thread for, and the output Codex sent back. */
export interface AskedCall {
  who: 'primary' | 'child';
  tool: string;
  callId: string;
  output: string | null;
}

/** Records, against the call that asked for it, every tool output a Responses request carries. */
export function recordOutputs(input: any[], calls: AskedCall[]): void {
  for (const o of input.filter((i) => i?.type === 'function_call_output')) {
    const c = calls.find((x) => x.callId === o.call_id);
    if (c && c.output === null) c.output = text(o.output);
  }
}

/**
 * Answers one Responses request of a two-thread Codex case: the tool call
 * `next` (recorded in `calls`) or, with nothing left to call, the thread's
 * closing text. `tag` keeps the ids of one stand-in apart from another's.
 */
export function replyNext(
  res: ServerResponse,
  body: any,
  o: { calls: AskedCall[]; tag: string; id: number; child: boolean },
  next: { namespace: string; name: string; args: unknown } | null,
): void {
  const who = o.child ? 'child' : 'primary';
  let item: any;
  if (next) {
    const callId = `call_${o.tag}_${o.id}`;
    o.calls.push({ who, tool: next.name, callId, output: null });
    item = {
      type: 'function_call',
      id: `fc_${o.tag}_${o.id}`,
      call_id: callId,
      name: next.name,
      ...(next.namespace ? { namespace: next.namespace } : {}),
      arguments: JSON.stringify(next.args),
      status: 'completed',
    };
  } else {
    item = responsesText(`msg_${o.tag}_${o.id}`, `${who}: done`);
  }
  responsesReply(res, body, item, `resp_${o.tag}_${o.id}`);
}
