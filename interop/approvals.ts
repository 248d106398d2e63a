import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type SpawnedDaemon } from '../devkit/daemon.js';
import { post, waitTurn } from '../devkit/turns.js';
import { isolatedEnv, tail, versionOf, type CheckContext, type CheckResult } from './run-under.js';
import { shellCommand, startCodexShellStandIn } from './turn-standins.js';
import { userCodexConfig } from './codex.js';

/**
 * Codex's own approvals in delivered turns: the real `codex app-server`,
 * under the user's approval policy `untrusted` (it asks before any command
 * not on its list of safe ones), is told by the model stand-in to run a
 * shell command. The request must be in `agentteam approval list` with the
 * turn, the thread and the command; approved, the command runs and its
 * output reaches the model; denied, Codex tells the model it was declined;
 * undecided, it expires at the agent's deadline and Codex is told no.
 */

const TURN_TIMEOUT_MS = 180_000;
/** The agent's approvals deadline in this case: short, so the third turn need not wait ten minutes. */
const DEADLINE_S = 15;

interface Row {
  id: string;
  status: string;
  decidedBy: string | null;
  note: string | null;
  native: { runtime: string; turnId: string; threadId: string; kind: string; view: any } | null;
}

const one = (s: string) => s.replace(/\s+/g, ' ').trim().slice(-160);

async function pendingOf(d: SpawnedDaemon, turnId: string): Promise<Row> {
  for (const until = Date.now() + 120_000; Date.now() < until; ) {
    const r = await d.cli(['approval', 'list', '--status', 'pending']);
    const row = (JSON.parse(r.stdout).data?.approvals as Row[] | undefined)?.find(
      (a) => a.native?.turnId === turnId,
    );
    if (row) return row;
    const t = await waitTurn(d, turnId, ['queued', 'running', 'succeeded', 'failed', 'cancelled']);
    if (t.state !== 'queued' && t.state !== 'running')
      throw new Error(`turn ${turnId} ended ${t.state} without asking`);
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error(`no pending approval for ${turnId} in approval list`);
}

export async function checkCodexApprovals(ctx: CheckContext): Promise<CheckResult> {
  const m = await startCodexShellStandIn();
  const root = mkdtempSync(join(tmpdir(), 'agentteam-interop-approvals-'));
  try {
    const home = join(root, 'home');
    const work = join(root, 'work');
    const agentteamHome = join(root, 'agentteam');
    for (const dir of [home, work, agentteamHome, join(home, '.codex')])
      mkdirSync(dir, { recursive: true });
    // The interop user's Codex home: approval policy `on-request` (0.171 refuses `untrusted`), the
    // workspace sandbox, and a rule of their own that makes Codex ask before any `mkdir` (`rules/ask.rules`).
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      userCodexConfig(m.url, 'sandbox_mode = "workspace-write"', 'on-request'),
    );
    mkdirSync(join(home, '.codex', 'rules'));
    writeFileSync(
      join(home, '.codex', 'rules', 'ask.rules'),
      'prefix_rule(pattern = ["mkdir"], decision = "prompt")\n',
    );
    writeFileSync(
      join(agentteamHome, 'profile.json'),
      JSON.stringify({
        agents: [
          {
            id: 'codexask',
            runtime: 'codex',
            baseUrl: `${m.url}/v1`,
            apiKeyEnv: 'INTEROP_STANDIN_KEY',
            filesystem: { allowedPaths: [work] },
            launch: { binary: join(ctx.binDir, 'codex'), deadlineSeconds: 170 },
            approvals: { deadlineSeconds: DEADLINE_S },
          },
        ],
      }),
    );
    const env = isolatedEnv(ctx, home, { INTEROP_STANDIN_KEY: 'sk-interop-stand-in' });
    const d = await startDaemon({ home: agentteamHome, env });
    const fail = async (why: string): Promise<never> => {
      const logs = await d.cli(['daemon', 'logs', '--limit', '40']);
      throw new Error(
        `${why}\ntools offered: ${JSON.stringify([...m.tools])}\n${tail(logs.stdout, 2500)}`,
      );
    };
    try {
      const turn = async (text: string, decide: 'approve' | 'reject' | null) => {
        const posted = await post(d, 'dm:codexask', text);
        const turnId = posted.turns[0]!.turnId;
        const row = await pendingOf(d, turnId).catch((e: Error) => fail(e.message));
        const command = String(row.native?.view?.command?.text ?? '');
        if (
          row.native?.runtime !== 'codex-app-server' ||
          !command.includes(shellCommand(posted.message.id))
        )
          await fail(`the request does not show the command: ${JSON.stringify(row)}`);
        if (decide) {
          const r = await d.cli(['approval', 'decide', row.id, decide, '--note', 'interop']);
          if (r.code !== 0) await fail(`approval decide: ${r.stdout}${r.stderr}`);
        }
        const t = await waitTurn(d, turnId, undefined, TURN_TIMEOUT_MS);
        if (t.state !== 'succeeded') await fail(`turn ${turnId} ended ${t.state} (${t.error})`);
        const ended = JSON.parse((await d.cli(['approval', 'get', row.id])).stdout).data
          .approval as Row;
        return { id: posted.message.id, row, ended, shell: m.shell.get(posted.message.id) ?? '' };
      };
      const approved = await turn('Check the build output, please.', 'approve');
      if (approved.ended.status !== 'approved')
        await fail(`approve: ${JSON.stringify(approved.ended)}`);
      if (!approved.shell.includes(`interop-approved-${approved.id}`))
        await fail(`approve: the command's output did not reach the model: ${approved.shell}`);
      const denied = await turn('And once more?', 'reject');
      if (
        denied.ended.status !== 'denied' ||
        denied.shell.includes(`interop-approved-${denied.id}`)
      )
        await fail(`deny: ${JSON.stringify(denied.ended)} shell ${denied.shell}`);
      const started = Date.now();
      const expired = await turn('A last time?', null);
      const waited = Math.round((Date.now() - started) / 1000);
      if (
        expired.ended.status !== 'expired' ||
        expired.shell.includes(`interop-approved-${expired.id}`)
      )
        await fail(`deadline: ${JSON.stringify(expired.ended)} shell ${expired.shell}`);
      return {
        version: `${await versionOf(ctx, 'codex --version')} app-server`,
        detail: `approval_policy on-request and a prompt rule for mkdir, the stand-in model runs its shell tool: each request in approval list (thread ${approved.row.native?.threadId}, the command); approved → output "${one(tail(approved.shell, 60))}" reached the model; denied → Codex told the model "${one(denied.shell)}"; undecided → expired after ${waited} s (deadline ${DEADLINE_S} s), Codex told "${one(expired.shell)}"`,
      };
    } finally {
      await d.close();
    }
  } finally {
    await m.close();
    rmSync(root, { recursive: true, force: true });
  }
}
