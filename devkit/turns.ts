import { strict as assert } from 'node:assert';
import { fileURLToPath } from 'node:url';
import type { Daemon } from './daemon.js';

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

/** Polls `agentteam turn show` until the turn is in one of `states` (default: any final state). */
export async function waitTurn(
  d: Daemon,
  id: string,
  states: readonly string[] = FINAL,
  timeoutMs = 20_000,
): Promise<Turn> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await d.cli(['turn', 'show', id]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const turn = JSON.parse(r.stdout).data.turn as Turn;
    if (states.includes(turn.state)) return turn;
    if (Date.now() > until) assert.fail(`turn ${id} stayed ${turn.state}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
