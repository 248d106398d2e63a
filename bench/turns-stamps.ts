import { spawn } from 'node:child_process';
import { watch, readFileSync, readdirSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';

/**
 * The trivial runtime of `bench/turns.ts` and how its exec moment is read.
 * The runtime is `/bin/sh -c 'exec date +%s%N >"$0/$AGENTTEAM_TURN_ID"' DIR`:
 * dash opens the file and replaces itself with `date`, which writes the wall
 * clock in nanoseconds. So the stamp is taken one small C program's start
 * after the exec (dash's and date's starts, measured apart by `ownStartMs`),
 * never a Node start. Also read here: the daemon's launch marks.
 */

export function trivialRuntime(stampDir: string): string[] {
  return ['/bin/sh', '-c', 'exec date +%s%N >"$0/$AGENTTEAM_TURN_ID"', stampDir];
}

/** Wall clock in ms with sub-ms precision, comparable across processes (as daemon/turns/marks.ts). */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

function parseStamp(text: string): number | null {
  return text.endsWith('\n') ? Number(BigInt(text.trim()) / 1000n) / 1000 : null;
}

/** Waits for stamp files by name (a turn id), through inotify rather than polling. */
export class Stamps {
  private readonly waiters = new Map<string, (at: number) => void>();
  private readonly seen = new Map<string, number>();
  private readonly watcher: FSWatcher;

  constructor(private readonly dir: string) {
    this.watcher = watch(dir, (_e, name) => {
      if (name) this.look(name.toString());
    });
  }

  private look(name: string): void {
    if (this.seen.has(name)) return;
    let at: number | null = null;
    try {
      at = parseStamp(readFileSync(join(this.dir, name), 'utf8'));
    } catch {
      return;
    }
    if (at === null) return;
    this.seen.set(name, at);
    this.waiters.get(name)?.(at);
    this.waiters.delete(name);
  }

  /** The exec stamp of `turnId`, once its runtime has written it. */
  of(turnId: string, timeoutMs = 60_000): Promise<number> {
    this.look(turnId);
    const known = this.seen.get(turnId);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no exec stamp for ${turnId}`)), timeoutMs);
      this.waiters.set(turnId, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  /** Every stamp in the folder, by turn id (read from disk, whatever was watched). */
  all(): Map<string, number> {
    for (const name of readdirSync(this.dir)) this.look(name);
    return new Map(this.seen);
  }

  close(): void {
    this.watcher.close();
  }
}

/** The floor: this process spawns the trivial runtime itself; wall ms from before spawn() to its stamp. */
export async function bareSpawnMs(stamps: Stamps, stampDir: string, id: string): Promise<number> {
  const [cmd, ...args] = trivialRuntime(stampDir);
  const t0 = wallMs();
  const child = spawn(cmd!, args, {
    env: { PATH: process.env.PATH, AGENTTEAM_TURN_ID: id },
    stdio: 'ignore',
  });
  const [at] = await Promise.all([stamps.of(id), new Promise((r) => child.once('exit', r))]);
  return at - t0;
}

/**
 * The trivial runtime's own start, which every post → exec figure includes:
 * bash reads its microsecond clock (`$EPOCHREALTIME`) just before it execs
 * the same runtime command; the runtime's stamp minus that reading is the
 * exec of dash, dash's start and its exec of `date` up to date's clock read.
 */
export async function ownStartMs(): Promise<number> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      'bash',
      ['-c', 't=$EPOCHREALTIME; printf "%s\\n" "$t"; exec /bin/sh -c "exec date +%s%N"'],
      { stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH, LC_ALL: 'C' } },
    );
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b.toString()));
    child.once('exit', () => resolve(text));
    child.once('error', reject);
  });
  const [before, stamp] = out.trim().split('\n');
  const [sec, micro] = before!.split('.');
  return Number(BigInt(stamp!) - BigInt(sec!) * 1_000_000_000n - BigInt(micro!) * 1000n) / 1e6;
}

export const pct = (values: readonly number[], p: number): number => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
};

interface Mark {
  turnId: string;
  step: string;
  at: number;
}

/** The launch marks bench/turns-marks.ts wrote for the daemon (`<prefix>.<pid>`), by turn and step. */
export function readMarks(prefix: string): Map<string, Map<string, number>> {
  const dir = join(prefix, '..');
  const base = prefix.slice(dir.length + 1);
  const byTurn = new Map<string, Map<string, number>>();
  for (const f of readdirSync(dir).filter((n) => n.startsWith(`${base}.`))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)) {
      const m = JSON.parse(line) as Mark;
      const steps = byTurn.get(m.turnId) ?? new Map<string, number>();
      if (!steps.has(m.step)) steps.set(m.step, m.at);
      byTurn.set(m.turnId, steps);
    }
  }
  return byTurn;
}

/** p50 of the time between two launch steps over `turns`. */
export function stepP50(
  marks: Map<string, Map<string, number>>,
  turns: Iterable<string>,
  a: string,
  b: string,
) {
  const gaps: number[] = [];
  for (const id of turns) {
    const s = marks.get(id);
    const x = s?.get(a);
    const y = s?.get(b);
    if (x !== undefined && y !== undefined) gaps.push(y - x);
  }
  return pct(gaps, 0.5);
}
