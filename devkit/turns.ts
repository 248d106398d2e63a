import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SERVER } from '../catalog/ids.js';
import { startDaemon, type Daemon, type SpawnedDaemon } from './daemon.js';
import { operatorOf } from './operator.js';

/** The command runtime of the turn tests (test/fixtures/turn-runtime/answer.mjs) with its arguments. */
export function answerRuntime(args: readonly string[] = []): string[] {
  const script = fileURLToPath(
    new URL('../../test/fixtures/turn-runtime/answer.mjs', import.meta.url),
  );
  return [process.execPath, script, ...args];
}

export interface Turn {
  id: string;
  agentId: string;
  target: string;
  messageIds: string[];
  state: string;
  error: string | null;
  errorDetail: string | null;
  exitStatus: number | null;
  replied: boolean | null;
  sessionId: string | null;
  resumed: boolean;
  retryOf: string | null;
  finishedAt: string | null;
}

interface Posted {
  message: { id: string; target: string };
  turns: { turnId: string; agentId: string; state: string; joined: boolean }[];
}

/** `agentteam message post` as human:ada; the answer's data. */
export async function post(d: Daemon, target: string, text: string): Promise<Posted> {
  const r = await d.cli(['message', 'post', '--target', target, '--as', 'human:ada', text]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return JSON.parse(r.stdout).data as Posted;
}

const FINAL = ['succeeded', 'failed', 'cancelled', 'interrupted', 'dropped'];

/**
 * Waits until the turn is in one of `states` (default: any final state) and
 * returns it as `agentteam turn show` prints it. The waiting polls the
 * operator API (reads.turn.get, what the command sends): a CLI process per
 * poll cost about 0.2 s of CPU. The CLI reads the turn once its state is
 * there, and the wait goes on should the CLI see another state.
 */
export async function waitTurn(
  d: Daemon,
  id: string,
  states: readonly string[] = FINAL,
  timeoutMs = 20_000,
): Promise<Turn> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const polled = await stateOf(d, id);
    let state = polled;
    if (polled === undefined || states.includes(polled)) {
      const r = await d.cli(['turn', 'show', id]);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const turn = JSON.parse(r.stdout).data.turn as Turn;
      if (states.includes(turn.state)) return turn;
      state = turn.state;
    }
    if (Date.now() > until) assert.fail(`turn ${id} stayed ${state}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

/** The turn's state over the operator API; undefined when that read fails (the CLI then tells why). */
async function stateOf(d: Daemon, id: string): Promise<string | undefined> {
  try {
    const r = await operatorOf(d).call('reads.turn.get', {
      params: { serverId: DEFAULT_SERVER },
      body: { id },
    });
    return (r.turn as Turn).state;
  } catch {
    return undefined;
  }
}

/**
 * A daemon whose agents run the fixture runtime: `a1` answers at once,
 * `sleeper` sleeps a minute first. Each run writes `<pid>.json` into the
 * returned `record` directory (its pid, prompt, turn id).
 */
export async function startTurnDaemon(): Promise<{ d: SpawnedDaemon; record: string }> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-turn-console-'));
  const record = join(home, 'record');
  const work = join(home, 'work');
  mkdirSync(record);
  mkdirSync(work);
  const agent = (id: string, extra: string[]) => ({
    id,
    runtime: 'generic',
    filesystem: { allowedPaths: [work] },
    launch: { command: answerRuntime([...extra, 'record', record]) },
  });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({ agents: [agent('a1', []), agent('sleeper', ['sleep', '60000'])] }),
  );
  return { d: await startDaemon({ home }), record };
}

/** The pid of the runtime a turn started (from the fixture's record), once it has written it. */
export async function runtimePid(record: string, turnId: string): Promise<number> {
  for (const until = Date.now() + 20_000; Date.now() < until; ) {
    for (const f of readdirSync(record)) {
      let r: { pid: number; turn: string } | null = null;
      try {
        r = JSON.parse(readFileSync(join(record, f), 'utf8')) as { pid: number; turn: string };
      } catch {
        continue; // still being written
      }
      if (r.turn === turnId) return r.pid;
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  return assert.fail(`no runtime recorded for ${turnId}`);
}
