/**
 * What a command that threw leaves behind: an error that carries its own exit
 * status (no daemon: 3) is expected and printed as its message only; anything
 * else is a bug, printed with its stack, exit 1. Shared by the bundled exec
 * entry (cli/agentteam.ts) and cli/program.ts.
 */
export function exitStatusOfFailure(err: unknown): number {
  const exit = (err as { exitCode?: unknown } | null)?.exitCode;
  if (err instanceof Error && typeof exit === 'number') {
    process.stderr.write(`agentteam: ${err.message}\n`);
    return exit;
  }
  process.stderr.write(`agentteam: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}
