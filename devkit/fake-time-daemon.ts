import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon as startInProcess } from '../daemon/server.js';
import { FakeClock } from './auth-clock.js';
import type { Daemon } from './daemon.js';

/** An in-process daemon on a manual clock, so timeouts and coalescing are tested without waiting. */
export async function fakeTimeDaemon(
  t: { after(fn: () => unknown): void },
  profile?: unknown,
): Promise<{ d: Daemon; clock: FakeClock; reload(): Promise<unknown> }> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-ct-'));
  if (profile !== undefined) writeFileSync(join(home, 'profile.json'), JSON.stringify(profile));
  const clock = new FakeClock(Date.now());
  const daemon = await startInProcess({ home, clock, log: () => undefined });
  const d: Daemon = {
    home,
    url: daemon.url,
    pid: process.pid,
    cli: async () => ({ code: 1, stdout: '', stderr: 'not available in process' }),
    close: async () => {
      await daemon.stop('test');
      rmSync(home, { recursive: true, force: true });
    },
  };
  t.after(() => d.close());
  return { d, clock, reload: () => daemon.reload() };
}
