import { spawn } from 'node:child_process';
import type { TestContext } from 'node:test';
import { BIN, firstLine } from './daemon.js';

/**
 * The environment a runtime gets: `agentteam run` (server s1, agent a9)
 * started from a shell with `shellEnv` on top of this process's, its
 * runtime printing `process.env` as one JSON line, which is returned. The
 * run ends with the test: SIGTERM (which `run` passes on to the runtime),
 * then SIGKILL after 3 s.
 */
export async function runtimeEnvLine(t: TestContext, shellEnv: NodeJS.ProcessEnv): Promise<string> {
  const proc = spawn(
    process.execPath,
    [
      BIN,
      'run',
      '--server',
      's1',
      '--agent',
      'a9',
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(JSON.stringify(process.env)+"\\n");setInterval(()=>{},1e6)',
    ],
    { env: { ...process.env, ...shellEnv }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.after(async () => {
    // SIGTERM: `run` passes it on to the runtime, which would outlive a SIGKILLed `run`.
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  return firstLine(proc);
}
