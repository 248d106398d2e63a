/**
 * The `agentteam exec` command line. It is parsed here rather than by
 * commander because exec is the hot path of every runtime tool call and its
 * grammar is tiny; loading commander alone costs ~15 ms of CPU, about a sixth
 * of an empty node process (see bench/cli-start.ts).
 */
const FLAGS: Readonly<Record<string, string>> = {
  '-h': 'help',
  '--help': 'help',
  '--input-schema': 'inputSchema',
  '--output-schema': 'outputSchema',
  '--error-schema': 'errorSchema',
};

/** Domain, action and the JSON input. */
const MAX_OPERANDS = 3;

export type ExecArgv =
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
      const flag = FLAGS[token];
      if (!flag) return { ok: false, message: `unknown option ${token}` };
      opts[flag] = true;
    } else {
      args.push(token);
    }
  }
  if (args.length > MAX_OPERANDS) {
    return { ok: false, message: `too many arguments: expected <domain> <action> and one JSON value (quote it) or -` };
  }
  return { ok: true, opts, args };
}
