import { dirname, join, resolve } from 'node:path';
import { MCP_TOOLS } from '../../catalog/mcp-tools.js';
import { homePaths, resolveHome } from '../../lib/home.js';
import { visible } from '../terminal-text.js';
import {
  checkDeclarationFile,
  formatIssue,
  readDeclarationFiles,
  resolveProgram,
  type DeclarationIssue,
} from '../../lib/tool-files.js';

/**
 * `agentteam tools check [FILE]`: checks one declaration file, or every file
 * of $AGENTTEAM_HOME/tools, without a daemon: the schema, `needs`, the
 * placeholders, the program, and names that clash with a built-in or with
 * each other. (Clashes with client tools are known to the running daemon
 * only: `agentteam tools list` reports those.) Exit 0 when all are good, 1 otherwise.
 */
export async function main(_opts: Record<string, unknown>, args: string[]): Promise<number> {
  const problems: DeclarationIssue[] = [];
  let found: {
    file: string;
    decl: { name: string; transport: { type: string; argv?: readonly string[] } };
  }[];
  if (args[0] !== undefined) {
    const file = resolve(args[0]);
    const r = checkDeclarationFile(file);
    found = r.ok ? [r] : [];
    if (!r.ok) problems.push(...r.problems);
  } else {
    found = readDeclarationFiles(homePaths(resolveHome()).tools, problems);
  }
  const builtins = new Set<string>(MCP_TOOLS.map((t) => t.name));
  const seen = new Map<string, string>();
  for (const { file, decl } of found) {
    const before = problems.length;
    if (builtins.has(decl.name))
      problems.push({
        file,
        pointer: '/name',
        message: `tool name "${decl.name}" is already taken by the daemon's built-in tools`,
      });
    const earlier = seen.get(decl.name);
    if (earlier)
      problems.push({
        file,
        pointer: '/name',
        message: `tool name "${decl.name}" is also declared by ${earlier}`,
      });
    else seen.set(decl.name, file);
    const t = decl.transport;
    if (t.type === 'command' && !resolveProgram(t.argv![0]!, dirname(file))) {
      problems.push({
        file,
        pointer: '/transport/argv/0',
        message: `program "${t.argv![0]}" is not an executable file`,
      });
    }
    if (problems.length === before) {
      process.stdout.write(`ok   ${visible(file)} (${visible(decl.name)})\n`);
    }
  }
  for (const p of problems) process.stdout.write(`bad  ${visible(formatIssue(p))}\n`);
  if (found.length === 0 && problems.length === 0)
    process.stdout.write(
      `no declarations in ${args[0] ?? join(homePaths(resolveHome()).tools, '*.json')}\n`,
    );
  return problems.length > 0 ? 1 : 0;
}
