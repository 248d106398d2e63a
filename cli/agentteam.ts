#!/usr/bin/env node
/**
 * The `agentteam` binary. The build bundles this file and the exec path it
 * reaches into one CommonJS file, dist/cli/agentteam.cjs (package.json
 * "bin"; see scripts/gen/bundle.ts): a runtime calls `agentteam exec` on
 * every tool use, and one CommonJS file starts without node's ESM loader and
 * without resolving a dozen modules, which together were about as much as
 * the rest of the command. Every other command (commander, the daemon and
 * message commands) stays ESM and is imported from cli/program.ts only here.
 */
import { runExec } from './exec/argv.js';
import { exitStatusOfFailure } from './failure.js';

async function main(argv: readonly string[]): Promise<void> {
  if (argv[2] !== 'exec') {
    // Not a literal, so the bundler leaves this import to node at run time.
    const program = new URL('./program.js', import.meta.url).href;
    const { run } = (await import(program)) as typeof import('./program.js');
    return run(argv);
  }
  let code: number;
  try {
    code = await runExec(argv.slice(3));
  } catch (err) {
    code = exitStatusOfFailure(err);
  }
  process.exitCode = code;
}

main(process.argv).catch((err: unknown) => {
  process.exitCode = exitStatusOfFailure(err);
});
