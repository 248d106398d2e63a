import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { startDaemon, type SpawnedDaemon } from './daemon.js';

/**
 * A daemon, and a stand-in for `codex app-server`: `script` (CommonJS, run
 * by this Node) written as an executable `codex` into a temporary folder
 * that goes with the test, as does the daemon.
 */
export async function fakeAppServer(
  t: TestContext,
  script: string,
): Promise<{ d: SpawnedDaemon; dir: string; fake: string }> {
  const d = await startDaemon();
  t.after(() => d.close());
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-fake-app-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = join(dir, 'codex');
  writeFileSync(fake, `#!${process.execPath}\n${script}`, { mode: 0o755 });
  return { d, dir, fake };
}

/** `agentteam run` arguments that drive `fake` as agent `agent`'s codex-app-server runtime. */
export function appServerRun(agent: string, prompt: string, fake: string, ...rest: string[]) {
  return [
    'run',
    '--server',
    'local',
    '--agent',
    agent,
    '--runtime',
    'codex-app-server',
    '--prompt',
    prompt,
    '--',
    fake,
    'app-server',
    ...rest,
  ];
}
