import { main as execMain } from '../commands/exec.js';
import { jsonText } from '../json-text.js';
import { visible } from '../terminal-text.js';

/*
 * The `agentteam exec` grammar is parsed here rather than by commander:
 * exec is the hot path of every runtime tool call and its grammar is tiny,
 * while loading commander alone costs about as much as everything else the
 * exec path loads (see bench/cli-start.ts).
 */
const EXEC_FLAGS: Readonly<Record<string, string>> = {
  '-h': 'help',
  '--help': 'help',
  '--input-schema': 'inputSchema',
  '--output-schema': 'outputSchema',
  '--error-schema': 'errorSchema',
};

/** Domain, action and the JSON input. */
const MAX_OPERANDS = 3;

/** The exit status of a usage error (ERROR_TABLE.usage.exit, without loading the table for it). */
const USAGE_EXIT = 2;

type ExecArgv =
  | { readonly ok: true; readonly opts: Record<string, true>; readonly args: string[] }
  | { readonly ok: false; readonly message: string };

export function parseExecArgv(tokens: readonly string[]): ExecArgv {
  const opts: Record<string, true> = {};
  const args: string[] = [];
  let operandsOnly = false;
  for (const token of tokens) {
    if (!operandsOnly && token === '--') {
      operandsOnly = true;
    } else if (!operandsOnly && /^-[-A-Za-z]/.test(token)) {
      const flag = EXEC_FLAGS[token];
      if (!flag) return { ok: false, message: `unknown option ${token}` };
      opts[flag] = true;
    } else {
      args.push(token);
    }
  }
  if (args.length > MAX_OPERANDS) {
    return {
      ok: false,
      message: `too many arguments: expected <domain> <action> and one JSON value (quote it) or -`,
    };
  }
  return { ok: true, opts, args };
}

/** `agentteam exec ...` from its argument tokens (everything after `exec`) to the exit status. */
export async function runExec(tokens: readonly string[]): Promise<number> {
  const parsed = parseExecArgv(tokens);
  if (!parsed.ok) {
    process.stderr.write(
      `agentteam exec: ${visible(parsed.message)}\nSee \`agentteam exec --help\`.\n`,
    );
    // The same envelope as every other refusal, on stdout (written here: the error table is not loaded on this path).
    process.stdout.write(
      `${jsonText({ ok: false, error: { code: 'usage', message: parsed.message, hint: 'See `agentteam exec --help`.' } })}\n`,
    );
    return USAGE_EXIT;
  }
  return execMain(parsed.opts, parsed.args);
}
