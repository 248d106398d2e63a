import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon, type SpawnedDaemon } from './daemon.js';
import { scriptBinary } from './script-binary.js';
import { waitFor } from './wait.js';

/**
 * A daemon whose Codex agents run the app-server stand-in
 * (test/fixtures/turn-runtime/app-server.mjs) in a mode that asks approvals
 * (`ask-command`, `ask-file`), each with the profile header SECRET (which the
 * stand-in puts in its command line), and the reads a person makes of the
 * inbox through the CLI.
 */
const FIXTURE = fileURLToPath(
  new URL('../../test/fixtures/turn-runtime/app-server.mjs', import.meta.url),
);
export const SECRET = 'hdr-secret-5be2c1d9';
export const LABEL = '[X-Gateway-Team]';

export interface Approval {
  id: string;
  title: string;
  status: string;
  requestedBy: string;
  decidedBy: string | null;
  note: string | null;
  createdAt: string;
  expiresAt: string;
  native: any;
}

export interface AskingDaemon {
  readonly d: SpawnedDaemon;
  /** `agentteam approval list` as a person runs it: the rows of one agent (newest first), and the output. */
  listed(agent: string, status?: string): Promise<{ rows: Approval[]; out: string }>;
  waitPending(agent: string): Promise<{ row: Approval; out: string }>;
  /** The stand-in's record of the app server whose prompt names this target. */
  recordOf(target: string): any;
  /** The agent's reply in a target. */
  reply(target: string): Promise<string>;
  close(): Promise<void>;
}

/** `agents`: id → [stand-in mode, the agent's approvals block or undefined]. */
export async function askingDaemon(
  agents: Record<string, [string, unknown?]>,
): Promise<AskingDaemon> {
  const root = mkdtempSync(join(tmpdir(), 'agentteam-codex-approvals-'));
  const records = join(root, 'records');
  const work = join(root, 'work');
  for (const dir of [records, join(root, 'threads'), work]) mkdirSync(dir);
  const codex = join(root, 'codex');
  scriptBinary(codex, FIXTURE);
  const home = join(root, 'agentteam');
  mkdirSync(home);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: Object.entries(agents).map(([id, [mode, approvals]]) => ({
        id,
        runtime: 'codex',
        baseUrl: 'http://127.0.0.1:9/v1',
        apiKeyEnv: 'FAKE_MODEL_KEY',
        headers: { 'X-Gateway-Team': SECRET },
        filesystem: { allowedPaths: [work] },
        launch: { binary: codex, args: [mode] },
        ...(approvals ? { approvals } : {}),
      })),
    }),
  );
  const d = await startDaemon({
    home,
    env: {
      FAKE_RECORD: records,
      FAKE_THREADS: join(root, 'threads'),
      CODEX_HOME: join(root, 'user-codex'),
    },
  });
  const listed = async (agent: string, status?: string) => {
    const r = await d.cli(['approval', 'list', ...(status ? ['--status', status] : [])]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const rows = (JSON.parse(r.stdout).data.approvals as Approval[]).filter(
      (a) => a.requestedBy === `agent:${agent}`,
    );
    return { rows, out: r.stdout };
  };
  return {
    d,
    listed,
    async waitPending(agent) {
      let found: { row: Approval; out: string } | undefined;
      await waitFor(
        async () => {
          const { rows, out } = await listed(agent, 'pending');
          if (rows[0]) found = { row: rows[0], out };
          return found !== undefined;
        },
        20_000,
        100,
      );
      if (!found) assert.fail(`no pending request of ${agent}`);
      return found;
    },
    recordOf(target) {
      for (const f of readdirSync(records)) {
        const r = JSON.parse(readFileSync(join(records, f), 'utf8'));
        if (
          r.got.some(
            (g: any) => g.method === 'turn/start' && g.params.input[0].text.includes(target),
          )
        )
          return r;
      }
      return null;
    },
    async reply(target) {
      const r = await d.cli(['message', 'history', '--target', target]);
      assert.equal(r.code, 0, r.stderr);
      const msgs = JSON.parse(r.stdout).data.messages as { author: string; content: string }[];
      return msgs.find((m) => m.author.startsWith('agent:'))?.content ?? '';
    },
    async close() {
      await d.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
