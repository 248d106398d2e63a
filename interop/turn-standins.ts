import {
  anthropicAside,
  anthropicReply,
  responsesAside,
  responsesReply,
  responsesText,
  start,
  text,
  type StandIn,
} from './model-standins.js';

/**
 * Model stand-ins for delivered turns: the model reads the turn's prompt
 * (the exact target and the message to answer, as daemon/turns/prompt.ts
 * writes them) and calls agentteam's `message_send` with that target,
 * `replyTo` and the content `interop-turn-reply-<message id>`; once the
 * tool's result is back it ends the turn with a short text. Each message is
 * answered once. Every request body is kept (`seen`), so a check can look
 * for the first exchange in the second turn's requests.
 */
const ASK = /exactly this target: (\S+?), with replyTo set to (msg_[0-9A-Za-z]+)/g;

/** The target and message id of the newest prompt in a request, if any. */
function asked(haystack: string): { target: string; replyTo: string } | null {
  const m = [...haystack.matchAll(ASK)].pop();
  return m ? { target: m[1]!, replyTo: m[2]! } : null;
}

export const replyContent = (messageId: string) => `interop-turn-reply-${messageId}`;

/**
 * Anthropic Messages, the tool as the runtime names an MCP server's tool:
 * Claude Code `mcp__agentteam__message_send`, OpenCode `agentteam_message_send`.
 */
export function startAnthropicTurnStandIn(tool: string): Promise<StandIn> {
  const answered = new Set<string>();
  return start((path, body, res, s) => {
    if (anthropicAside(path, res)) return;
    const messages: any[] = body?.messages ?? [];
    const hasTool = (body?.tools ?? []).some((t: any) => t?.name === tool);
    const ask = asked(text(messages));
    if (hasTool && ask && !answered.has(ask.replyTo)) {
      answered.add(ask.replyTo);
      const input = { ...ask, content: replyContent(ask.replyTo) };
      const block = {
        type: 'tool_use',
        id: `toolu_${Date.now()}`,
        name: tool,
        input,
      };
      return anthropicReply(res, body, block, 'tool_use');
    }
    const last = messages.at(-1);
    const result = (Array.isArray(last?.content) ? last.content : []).find(
      (c: any) => c?.type === 'tool_result',
    );
    if (result) s.results.push(text(result.content));
    anthropicReply(res, body, { type: 'text', text: 'answered' }, 'end_turn');
  });
}

/** OpenAI Responses, the tool as the app server offers agentteam's dynamic tools (namespace `agentteam`). */
export function startCodexTurnStandIn(): Promise<StandIn> {
  const answered = new Set<string>();
  let n = 0;
  return start((path, body, res, s) => {
    if (responsesAside(path, res)) return;
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const hasTool = (body?.tools ?? []).some(
      (t: any) =>
        t?.type === 'namespace' &&
        t?.name === 'agentteam' &&
        (t.tools ?? []).some((x: any) => x?.name === 'message_send'),
    );
    const ask = asked(text(input));
    const id = ++n;
    if (hasTool && ask && !answered.has(ask.replyTo)) {
      answered.add(ask.replyTo);
      const item = {
        type: 'function_call',
        id: `fc_turn_${id}`,
        call_id: `call_turn_${id}`,
        name: 'message_send',
        namespace: 'agentteam',
        arguments: JSON.stringify({ ...ask, content: replyContent(ask.replyTo) }),
        status: 'completed',
      };
      return responsesReply(res, body, item, `resp_turn_${id}`);
    }
    const output = input.at(-1);
    if (output?.type === 'function_call_output') s.results.push(text(output.output));
    responsesReply(res, body, responsesText(`msg_turn_${id}`, 'answered'), `resp_turn_${id}`);
  });
}

/** What the shell stand-in asks Codex to run for a message: not on Codex's list of safe commands, so an asking policy asks. */
export const shellCommand = (messageId: string) =>
  `mkdir -p interop-out && echo interop-approved-${messageId}`;

/** Codex's shell tools by name, and the arguments each takes (the pinned release offers one of them). */
const SHELL_ARGS: Record<string, (cmd: string) => Record<string, unknown>> = {
  shell: (cmd) => ({ command: ['bash', '-lc', cmd] }),
  shell_command: (cmd) => ({ command: cmd }),
  exec_command: (cmd) => ({ cmd }),
};
/** How the model asks to run outside the sandbox (Codex then asks the person under `on-request`). */
const ESCALATE = {
  sandbox_permissions: 'require_escalated',
  justification: 'the person asked for it',
};

/**
 * OpenAI Responses for the approvals case: on a turn's prompt the model
 * calls Codex's own shell tool with `shellCommand(message id)`; what comes
 * back from the shell (its output, or Codex's word that it was declined) is
 * kept per message (`shell`) and sent on with agentteam's `message_send`
 * (content `interop-shell-done-<message id>`); then the turn ends. `tools`
 * names the function tools Codex offered and their parameters; where the
 * shell tool takes `sandbox_permissions`, the call asks to run outside the sandbox.
 */
export async function startCodexShellStandIn(): Promise<
  StandIn & { shell: Map<string, string>; tools: Map<string, string[]> }
> {
  const shell = new Map<string, string>();
  const tools = new Map<string, string[]>();
  const stage = new Map<string, 'shell' | 'sent'>();
  let n = 0;
  const s = await start((path, body, res) => {
    if (responsesAside(path, res)) return;
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    for (const t of body?.tools ?? [])
      if (typeof t?.name === 'string')
        tools.set(t.name, Object.keys(t.parameters?.properties ?? {}));
    const ask = asked(text(input));
    const id = ++n;
    const reply = (item: object) => responsesReply(res, body, item, `resp_shell_${id}`);
    const call = (name: string, args: unknown, namespace?: string) =>
      reply({
        type: 'function_call',
        id: `fc_shell_${id}`,
        call_id: `call_shell_${id}`,
        name,
        ...(namespace ? { namespace } : {}),
        arguments: JSON.stringify(args),
        status: 'completed',
      });
    if (ask && !stage.has(ask.replyTo)) {
      const name = Object.keys(SHELL_ARGS).find((k) => tools.has(k));
      if (name) {
        stage.set(ask.replyTo, 'shell');
        const args = SHELL_ARGS[name]!(shellCommand(ask.replyTo));
        const escalates = tools.get(name)!.includes('sandbox_permissions');
        return call(name, escalates ? { ...args, ...ESCALATE } : args);
      }
    }
    const last = input.at(-1);
    if (ask && stage.get(ask.replyTo) === 'shell' && last?.type === 'function_call_output') {
      shell.set(ask.replyTo, text(last.output));
      stage.set(ask.replyTo, 'sent');
      const content = `interop-shell-done-${ask.replyTo}`;
      return call('message_send', { ...ask, content }, 'agentteam');
    }
    reply(responsesText(`msg_shell_${id}`, 'answered'));
  });
  return Object.assign(s, { shell, tools });
}
