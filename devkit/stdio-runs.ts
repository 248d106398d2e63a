import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What the stdio-session tests read of the runtimes a run started: the
 * record the stand-in runtime (test/fixtures/turn-runtime/tool-call.mjs)
 * writes, and the processes still carrying a turn's id in their environment.
 */

/** The stand-in runtime that calls the app's client__lookup_record over MCP. */
export const TOOL_CALL_FIXTURE = fileURLToPath(
  new URL('../../test/fixtures/turn-runtime/tool-call.mjs', import.meta.url),
);

/** The seed's `initialize` example params, as the seed writes them. */
export const SEED_INITIALIZE_PARAMS = `{
"required_capabilities": ["client.tools", "session.create", "turn.start"],
"client_tools": [{
"name": "client__lookup_record",
"description": "Look up a record by identifier.",
"input_schema": {
"type": "object",
"properties": {"record_id": {"type": "string"}},
"required": ["record_id"],
"additionalProperties": false
},
"timeout_ms": 30000
}]
}`;

export interface ToolCallRecord {
  pid: number;
  /** The session flag it was started with (--session-id or --resume). */
  session: string;
  resumed: boolean;
  turn: string;
  cwd: string;
  prompt: string;
  result: { isError: boolean; text: string } | null;
}

/** The record of the runtime that ran `turnId` in `dir`, once `done` holds for it. */
export async function recordOf(
  dir: string,
  turnId: string,
  done = (r: ToolCallRecord) => r.pid > 0,
): Promise<ToolCallRecord> {
  for (const until = Date.now() + 20_000; Date.now() < until; ) {
    for (const f of readdirSync(dir)) {
      let r: ToolCallRecord;
      try {
        r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as ToolCallRecord;
      } catch {
        continue; // being written
      }
      if (r.turn === turnId && done(r)) return r;
    }
    await new Promise((res) => setTimeout(res, 25));
  }
  return assert.fail(`no runtime recorded for ${turnId}`);
}

/** Processes whose environment names the turn (the watchdog and the runtime it started), from /proc. */
export function processesOf(turnId: string): number[] {
  const found: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/environ`, 'utf8').includes(`AGENTTEAM_TURN_ID=${turnId}\0`))
        found.push(Number(p));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/** Resolves once no process of the turn is left; fails after 10 s. */
export async function noProcessOf(turnId: string): Promise<void> {
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    if (processesOf(turnId).length === 0) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.fail(`processes of ${turnId} remain: ${processesOf(turnId).join(', ')}`);
}
