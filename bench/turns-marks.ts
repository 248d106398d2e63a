import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

/**
 * Preloaded into the daemon by `npm run bench -- turns` (NODE_OPTIONS
 * `--import`): collects the turn launch marks the daemon publishes
 * (daemon/turns/marks.ts) and writes them, one JSON line each, to
 * `$AGENTTEAM_BENCH_TURN_MARKS.<pid>` when the process exits. Held in memory
 * so that no file write lands on the path being measured. With
 * `$AGENTTEAM_BENCH_CPU_PROF` set it also profiles the process and writes
 * `<that>.<pid>.cpuprofile` (Node 20 refuses `--cpu-prof` in NODE_OPTIONS).
 * Other processes that inherit the preload (the CLI that starts and stops
 * the daemon) publish no marks and write nothing.
 */
const out = process.env.AGENTTEAM_BENCH_TURN_MARKS;
const prof = process.env.AGENTTEAM_BENCH_CPU_PROF;
if (out) {
  const lines: string[] = [];
  subscribe('agentteam:turn-launch', (m) => lines.push(JSON.stringify(m)));
  const session = prof ? new Session() : null;
  if (session) {
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.start');
  }
  process.on('exit', () => {
    if (lines.length === 0) return;
    writeFileSync(`${out}.${process.pid}`, `${lines.join('\n')}\n`);
    // An in-process session answers synchronously, so this works inside 'exit'.
    session?.post('Profiler.stop', (err, r) => {
      if (!err) writeFileSync(`${prof}.${process.pid}.cpuprofile`, JSON.stringify(r.profile));
    });
  });
}
