import { resolveHome } from '../../lib/home.js';
import { reportFailure, toolsRequest } from './tools-common.js';
import { jsonText } from '../json-text.js';
import { visible } from '../terminal-text.js';

/**
 * `agentteam tools scopes [--session ID] [--json]`: the saved delegated
 * scopes, one block per delegated session (agent, session, parent, task,
 * kind) with a line per scoped tool: its fingerprint's first 12 hex digits
 * and whether it is offered now as saved (`current`) or not (`changed`).
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const query = typeof opts.session === 'string' ? { session: opts.session } : {};
  const res = await toolsRequest(resolveHome(), 'clientTools.scopes', { query });
  if (typeof res === 'number') return res;
  if (res.json?.ok !== true) return reportFailure(res.json);
  if (opts.json === true) {
    process.stdout.write(`${jsonText(res.json)}\n`);
    return 0;
  }
  const { sessions } = res.json.data;
  if (sessions.length === 0) process.stdout.write('no saved delegated scopes\n');
  for (const s of sessions) {
    process.stdout.write(
      `${visible(s.agent)} ${visible(s.session)} ${visible(s.kind)} parent ${visible(s.parent)} task ${visible(s.task)}: ${s.tools.length} tools\n`,
    );
    for (const t of s.tools)
      process.stdout.write(
        `  ${visible(t.name)} ${t.fingerprint.slice(0, 12)} ${t.current ? 'current' : 'changed'}\n`,
      );
  }
  return 0;
}
