#!/usr/bin/env node
/**
 * The `agentteam` binary. The build bundles this file and the exec path it
 * reaches into one CommonJS file, dist/cli/agentteam.cjs (package.json
 * "bin"; see scripts/gen/bundle.ts): a runtime calls `agentteam exec` on
 * every tool use, and one CommonJS file starts without node's ESM loader and
 * without resolving a dozen modules, which together were about as much as
 * the rest of the command. `--version` is answered here too; every other
 * command (commander, the daemon and message commands) stays ESM and is
 * imported from cli/program.ts only here.
 */
import { runExec } from './exec/argv.js';
import { writeOut } from './exec/output.js';
import { exitStatusOfFailure } from './failure.js';
import { packageVersion } from './version.js';

async function main(argv: readonly string[]): Promise<void> {
  if (argv.length === 3 && (argv[2] === '--version' || argv[2] === '-V')) {
    // As commander prints it, without loading commander and every declaration for one line.
    writeOut(1, `${packageVersion()}\n`);
    return;
  }
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
