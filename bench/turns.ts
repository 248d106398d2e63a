import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from '../devkit/daemon.js';
import { closeHttp } from '../devkit/http.js';
import { benchHome, processCpuMs, processMemKb } from './procs.js';
import type { BenchResult } from './result.js';
import { TurnsApi } from './turns-api.js';
import {
  bareSpawnMs,
  ownStartMs,
  pct,
  readMarks,
  stepP50,
  Stamps,
  trivialRuntime,
  wallMs,
} from './turns-stamps.js';

/**
 * Delivered turns (`npm run bench -- turns`, `--quick` for a smoke run):
 *  1. post → runtime exec, one message at a time to an idle agent: from the
 *     start of the `messages.post` request to the moment the runtime is
 *     exec'd (the trivial runtime's stamp, bench/turns-stamps.ts), in rounds
 *     that alternate with the floor (this process spawning the same runtime);
 *  2. a burst of messages to many agents (default 1,000 to 50): all
 *     delivered, queue wait (queued → running), the daemon's RSS;
 *  3. lease open for each turn (prepareTurn's authorization: sign, token
 *     file, register) from the daemon's launch marks (daemon/turns/marks.ts),
 *     which a preload collects (bench/turns-marks.ts).
 * Sizes: BENCH_TURN_POSTS, BENCH_TURN_MESSAGES, BENCH_TURN_AGENTS. A CPU
 * profile of the daemon: BENCH_CPU_PROF=<dir>.
 */
export const name = 'turns';

const EXEC_TARGET_MS = 25;
const LEASE_TARGET_MS = 10;
const MARKS = fileURLToPath(new URL('./turns-marks.js', import.meta.url));

const size = (env: string, full: number, quick: number, isQuick: boolean): number =>
  Number(process.env[env] ?? (isQuick ? quick : full));

export async function run(argv: readonly string[] = []): Promise<BenchResult[]> {
  const quick = argv.includes('--quick');
  const posts = size('BENCH_TURN_POSTS', 200, 20, quick);
  const messages = size('BENCH_TURN_MESSAGES', 1000, 100, quick);
  const agentCount = size('BENCH_TURN_AGENTS', 50, 10, quick);
  const home = benchHome('agentteam-bench-turns-');
  const stampDir = join(home, 'stamps');
  const floorDir = join(home, 'floor');
  const work = join(home, 'work');
  for (const dir of [stampDir, floorDir, work]) mkdirSync(dir);
  const marksFile = join(home, 'marks');
  const agents = Array.from({ length: agentCount }, (_, i) => `t${i}`);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: agents.map((id) => ({
        id,
        runtime: 'generic',
        filesystem: { allowedPaths: [work] },
        launch: { command: trivialRuntime(stampDir) },
      })),
    }),
  );
  const prof = process.env.BENCH_CPU_PROF;
  const d = await startDaemon({
    home,
    env: {
      NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${MARKS}`].filter(Boolean).join(' '),
      AGENTTEAM_BENCH_TURN_MARKS: marksFile,
      ...(prof ? { AGENTTEAM_BENCH_CPU_PROF: join(prof, 'daemon') } : {}),
    },
  });
  const stamps = new Stamps(stampDir);
  const floorStamps = new Stamps(floorDir);
  const rows: BenchResult[] = [];
  try {
    const api = new TurnsApi(d);
    // 1. One message at a time to an idle agent; each round also measures the
    //    floor and the runtime's own start, in an order that alternates.
    const own: number[] = [];
    const lessOwn: number[] = [];
    const postToExec: number[] = [];
    const answered: number[] = [];
    const floor: number[] = [];
    const idle: string[] = [];
    const sentAt = new Map<string, number>();
    const execAt = new Map<string, number>();
    const cpu0 = processCpuMs(d.pid);
    for (let i = 0; i < posts; i++) {
      const measurePost = async () => {
        const t0 = wallMs();
        const r = await api.postMessage(agents[i % agents.length]!, `ping ${i}`);
        answered.push(wallMs() - t0);
        const turnId = r.turns[0]!.turnId;
        execAt.set(turnId, await stamps.of(turnId));
        postToExec.push(execAt.get(turnId)! - t0);
        idle.push(turnId);
        sentAt.set(turnId, t0);
        const t = await api.waitEnded(turnId);
        if (t.state !== 'succeeded') throw new Error(`turn ${turnId} ended ${t.state}`);
        // The same runtime's own start, right after, under the same conditions.
        own.push(await ownStartMs());
        lessOwn.push(postToExec.at(-1)! - own.at(-1)!);
      };
      const measureFloor = async () =>
        floor.push(await bareSpawnMs(floorStamps, floorDir, `f${i}`));
      if (i % 2 === 0) {
        await measurePost();
        await measureFloor();
      } else {
        await measureFloor();
        await measurePost();
      }
    }

    const cpu1 = processCpuMs(d.pid);
    const cpuUser = (cpu1.user - cpu0.user) / posts;
    const cpuSystem = (cpu1.system - cpu0.system) / posts;

    // 2. A burst to many agents, `inFlight` posts at a time.
    const rssIdleKb = processMemKb(d.pid, 'VmRSS');
    let rssMaxKb = rssIdleKb;
    const sampler = setInterval(
      () => (rssMaxKb = Math.max(rssMaxKb, processMemKb(d.pid, 'VmRSS'))),
      50,
    );
    const postedAt = new Map<string, { at: number; turnId: string }>();
    const burstStart = wallMs();
    let next = 0;
    const inFlight = 16;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < messages) {
          const i = next++;
          const at = wallMs();
          const r = await api.postMessage(agents[i % agents.length]!, `burst ${i}`);
          postedAt.set(r.message.id, { at, turnId: r.turns[0]!.turnId });
        }
      }),
    );
    const burstTurns = new Set([...postedAt.values()].map((p) => p.turnId));
    const execs = new Map<string, number>();
    for (const id of burstTurns) execs.set(id, await stamps.of(id));
    for (const id of burstTurns) await api.waitEnded(id);
    const drained = wallMs() - burstStart;
    clearInterval(sampler);
    const rssEndKb = processMemKb(d.pid, 'VmRSS');
    const hwmKb = processMemKb(d.pid, 'VmHWM');

    const turns = (await api.allTurns()).filter((t) => burstTurns.has(t.id));
    const perMessage = new Map<string, number>();
    for (const t of turns)
      for (const m of t.messageIds) perMessage.set(m, (perMessage.get(m) ?? 0) + 1);
    const delivered = [...postedAt.keys()].filter(
      (m) =>
        perMessage.get(m) === 1 &&
        turns.find((t) => t.messageIds.includes(m))?.state === 'succeeded',
    ).length;
    const queueWait = turns.map((t) => Date.parse(t.startedAt!) - Date.parse(t.createdAt));
    const messageToExec = [...postedAt.values()].map((p) => execs.get(p.turnId)! - p.at);

    await d.stop();
    const marks = readMarks(marksFile);
    const steps = (ids: Iterable<string>, a: string, b: string) => stepP50(marks, ids, a, b);
    const leaseIdle = [...idle].map(
      (id) => (marks.get(id)?.get('leased') ?? NaN) - (marks.get(id)?.get('lease') ?? NaN),
    );
    rows.push(
      {
        metric: `post → runtime exec, less the runtime's own start, p50 (${posts} posts, one at a time)`,
        value: pct(lessOwn, 0.5),
        unit: 'ms',
        target: `<= ${EXEC_TARGET_MS} ms`,
        pass: pct(lessOwn, 0.5) <= EXEC_TARGET_MS,
      },
      {
        metric: "post → runtime exec, less the runtime's own start, p99",
        value: pct(lessOwn, 0.99),
        unit: 'ms',
      },
      {
        metric: 'post → runtime exec as measured (with it) p50',
        value: pct(postToExec, 0.5),
        unit: 'ms',
      },
      { metric: 'post → runtime exec as measured p99', value: pct(postToExec, 0.99), unit: 'ms' },
      {
        metric: "the runtime's own start (exec sh, sh's exec of date) p50",
        value: pct(own, 0.5),
        unit: 'ms',
      },
      {
        metric:
          'floor: this process spawns the same runtime, spawn → exec p50 (own start included)',
        value: pct(floor, 0.5),
        unit: 'ms',
      },
      {
        metric: `daemon CPU per delivered turn, user (post, launch, end, ${(api.reads / posts).toFixed(1)} reads)`,
        value: cpuUser,
        unit: 'ms',
      },
      {
        metric: 'daemon CPU per delivered turn, system (fork, files)',
        value: cpuSystem,
        unit: 'ms',
      },
      { metric: 'post answered p50', value: pct(answered, 0.5), unit: 'ms' },
      {
        metric: '  post start → queued (HTTP, message stored, routing, enqueue) p50',
        value: pct(
          idle.map((id) => (marks.get(id)?.get('queued') ?? NaN) - (sentAt.get(id) ?? NaN)),
          0.5,
        ),
        unit: 'ms',
      },
      { metric: '  queued → claimed p50', value: steps(idle, 'queued', 'claimed'), unit: 'ms' },
      {
        metric: '  claimed → lease p50 (workdir, message texts, session)',
        value: steps(idle, 'claimed', 'lease'),
        unit: 'ms',
      },
      {
        metric: '  lease open p50 (sign, token file, register)',
        value: pct(leaseIdle, 0.5),
        unit: 'ms',
        target: `<= ${LEASE_TARGET_MS} ms`,
        pass: pct(leaseIdle, 0.5) <= LEASE_TARGET_MS,
      },
      {
        metric: '  leased → prepared p50 (env, prompt file)',
        value: steps(idle, 'leased', 'prepared'),
        unit: 'ms',
      },
      {
        metric: '  prepared → spawned p50 (spawn() of the watchdog)',
        value: steps(idle, 'prepared', 'spawned'),
        unit: 'ms',
      },
      {
        metric: "  spawned → runtime exec, less the runtime's own start, p50 (the watchdog)",
        value: pct(
          idle.map((id, i) => execAt.get(id)! - (marks.get(id)?.get('spawned') ?? NaN) - own[i]!),
          0.5,
        ),
        unit: 'ms',
      },
      {
        metric: `burst: ${messages} messages to ${agentCount} agents delivered`,
        value: delivered,
        unit: 'msgs',
        target: `${messages}`,
        pass: delivered === messages,
      },
      { metric: `burst: turns (coalesced)`, value: turns.length, unit: 'turns' },
      { metric: 'burst: all ended after', value: drained, unit: 'ms' },
      {
        metric: 'burst: queue wait (queued → running) p50',
        value: pct(queueWait, 0.5),
        unit: 'ms',
      },
      { metric: 'burst: queue wait p99', value: pct(queueWait, 0.99), unit: 'ms' },
      {
        metric: 'burst: message post → its turn’s exec p50',
        value: pct(messageToExec, 0.5),
        unit: 'ms',
      },
      {
        metric: 'burst: message post → its turn’s exec p99',
        value: pct(messageToExec, 0.99),
        unit: 'ms',
      },
      { metric: 'burst: lease open p50', value: steps(burstTurns, 'lease', 'leased'), unit: 'ms' },
      { metric: 'daemon RSS idle before the burst', value: rssIdleKb / 1024, unit: 'MB' },
      {
        metric: 'daemon RSS max during the burst (50 ms samples)',
        value: rssMaxKb / 1024,
        unit: 'MB',
      },
      { metric: 'daemon RSS after the burst', value: rssEndKb / 1024, unit: 'MB' },
      { metric: 'daemon RSS peak (VmHWM)', value: hwmKb / 1024, unit: 'MB' },
    );
    return rows;
  } finally {
    stamps.close();
    floorStamps.close();
    closeHttp();
    await d.close();
    rmSync(home, { recursive: true, force: true });
  }
}
