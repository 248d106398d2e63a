import { type AgentApprovals, DEFAULT_APPROVALS } from '../profile/approvals.js';
import type { AgentConfig } from '../profile/types.js';
import type { NativeAsk } from './ask.js';

/** What the agent's policy says of one request before anyone is asked. */
type PolicyVerdict =
  | { readonly answer: 'allow' | 'deny'; readonly rule: string }
  | { readonly answer: 'ask' };

/** Shell control operators: a command holding one is more than the one program an allow pattern names. */
const CONTROL = /[;&|`\n\r<>]|\$\(/;

/** `*` matches any run of characters; everything else is literal; the whole command must match. */
function matches(pattern: string, command: string): boolean {
  const re = pattern
    .trim()
    .split('*')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}$`, 's').test(command);
}

/** The agent's approvals block, or the defaults (everything the runtime asks goes to the inbox). */
export function policyOf(agent: AgentConfig | undefined): AgentApprovals {
  return agent?.approvals ?? DEFAULT_APPROVALS;
}

/**
 * The agent's policy on one request. Deny first: a command matching a
 * `denyCommands` pattern, whole or any part between control operators, is
 * refused. An allow pattern lets through only a command without control
 * operators (`ls *` must not allow `ls; rm -rf ~`). A tool is allowed
 * without asking only when allowReadOnlyTools is on and the tool's trusted
 * annotation (not the runtime's say-so) is readOnlyHint. A kind the inbox
 * does not take is denied: fail closed.
 */
export function verdict(p: AgentApprovals, ask: NativeAsk, readOnlyTool: boolean): PolicyVerdict {
  if (ask.kind === 'command' && ask.command !== undefined) {
    const command = ask.command.trim();
    const parts = [command, ...command.split(/;|&&|\|\||\||\n/).map((s) => s.trim())];
    const denied = p.denyCommands.find((d) => parts.some((c) => c !== '' && matches(d, c)));
    if (denied !== undefined) return { answer: 'deny', rule: `denyCommands: ${denied}` };
    if (!CONTROL.test(command)) {
      const allowed = p.allowCommands.find((a) => matches(a, command));
      if (allowed !== undefined) return { answer: 'allow', rule: `allowCommands: ${allowed}` };
    }
  }
  if (ask.kind === 'tool' && p.allowReadOnlyTools && readOnlyTool)
    return { answer: 'allow', rule: 'allowReadOnlyTools' };
  if (!p.inbox.includes(ask.kind))
    return { answer: 'deny', rule: `approvals.inbox does not take ${ask.kind}` };
  return { answer: 'ask' };
}
