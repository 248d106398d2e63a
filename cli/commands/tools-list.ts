import { resolveHome } from '../../lib/home.js';
import { formatIssue } from '../../lib/tool-files.js';
import { reportFailure, toolsRequest } from './tools-common.js';
import { jsonText } from '../json-text.js';
import { visible } from '../terminal-text.js';

/**
 * `agentteam tools list [--json]`: every tool agents can call as the running
 * daemon holds it (built-in, declared, client), then the problems of the
 * last declaration load on stderr. Exit 1 when a declaration was refused.
 */
export async function main(opts: Record<string, unknown>, _args: string[]): Promise<number> {
  const res = await toolsRequest(resolveHome(), 'tools.list', {});
  if (typeof res === 'number') return res;
  if (res.json?.ok !== true) return reportFailure(res.json);
  const { tools, declarations } = res.json.data;
  if (opts.json === true) process.stdout.write(`${jsonText(res.json)}\n`);
  else {
    // Client tools are named by apps: shown through visible() like every agent- or app-chosen text.
    const rows = tools.map((t) => [
      visible(t.name),
      t.source,
      t.transport,
      t.annotations.readOnlyHint === true ? 'read-only' : 'may change',
      visible(t.file ?? ''),
    ]);
    const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), 4));
    for (const r of rows)
      process.stdout.write(
        `${r
          .map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c))
          .join('  ')
          .trimEnd()}\n`,
      );
  }
  for (const p of declarations.problems)
    process.stderr.write(`agentteam tools: ${visible(formatIssue(p))}\n`);
  return declarations.problems.length > 0 ? 1 : 0;
}
