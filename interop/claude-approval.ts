import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type SpawnedDaemon } from '../devkit/daemon.js';
import { post, waitTurn } from '../devkit/turns.js';
import { anthropicAside, anthropicReply, start, text, type StandIn } from './model-standins.js';
import { isolatedEnv, tail, versionOf, type CheckContext, type CheckResult } from './run-under.js';

/**
 * Claude Code's permission prompt in the approval inbox: a delivered turn
 * of a real Claude Code whose model (the stand-in) asks to run a Bash
 * command, with no bypass and no allow rule for it. The driver's
 * `PermissionRequest` hook files the request; it must show in `agentteam
 * approval list`; approving it from the CLI lets the command run, and its
 * output comes back to the model, which answers the DM with it.
 */
const TURN_TIMEOUT_MS = 180_000;
const TOOL = 'mcp__agentteam__message_send';
const ASK = /exactly this target: (\S+?), with replyTo set to (msg_[0-9A-Za-z]+)/;

/** The model: Bash first; once its result is back, message_send with that output; then done. */
function startApprovalStandIn(command: string): Promise<StandIn> {
  let step = 0;
  return start((path, body, res, s) => {
    if (anthropicAside(path, res)) return;
    const messages: any[] = body?.messages ?? [];
    const all = text(messages);
    const ask = ASK.exec(all);
    const last = messages.at(-1);
    const result = (Array.isArray(last?.content) ? last.content : []).find(
      (c: any) => c?.type === 'tool_result',
    );
    if (result) s.results.push(text(result.content));
    if (ask && step === 0) {
      step = 1;
      const input = { command, description: 'Print the interop marker' };
      return anthropicReply(
        res,
        body,
        { type: 'tool_use', id: 'toolu_bash_1', name: 'Bash', input },
        'tool_use',
      );
    }
    if (ask && step === 1 && result) {
      step = 2;
      const input = {
        target: ask[1],
        replyTo: ask[2],
        content: `bash said: ${text(result.content)}`,
      };
      return anthropicReply(
        res,
        body,
        { type: 'tool_use', id: 'toolu_send_1', name: TOOL, input },
        'tool_use',
      );
    }
    anthropicReply(res, body, { type: 'text', text: 'answered' }, 'end_turn');
  });
}

interface Listed {
  id: string;
  status: string;
  [k: string]: unknown;
}

async function pendingApproval(d: SpawnedDaemon, deadline: number): Promise<Listed> {
  for (;;) {
    const r = await d.cli(['approval', 'list', '--status', 'pending']);
    const items = (JSON.parse(r.stdout || '{}').data?.approvals ?? []) as Listed[];
    if (items.length > 0) return items[0]!;
    if (Date.now() > deadline)
      throw new Error(`no pending approval in the inbox:\n${r.stdout}${r.stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function checkClaudeApproval(ctx: CheckContext): Promise<CheckResult> {
  const marker = `interop-approved-${process.pid}`;
  // Not read-only (it creates a folder): Claude Code runs a plain `echo` without asking anyone.
  const command = `mkdir -p approved && echo ${marker}`;
  const m = await startApprovalStandIn(command);
  const root = mkdtempSync(join(tmpdir(), 'agentteam-interop-approval-'));
  try {
    const home = join(root, 'home');
    const work = join(root, 'work');
    const agentteamHome = join(root, 'agentteam');
    for (const dir of [home, work, agentteamHome]) mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(agentteamHome, 'profile.json'),
      JSON.stringify({
        agents: [
          {
            id: 'claudeask',
            runtime: 'claude',
            apiKeyEnv: 'INTEROP_STANDIN_KEY',
            model: 'sonnet',
            baseUrl: m.url,
            filesystem: { allowedPaths: [work] },
            launch: { binary: join(ctx.binDir, 'claude'), deadlineSeconds: 170 },
          },
        ],
      }),
    );
    const env = isolatedEnv(ctx, home, {
      INTEROP_STANDIN_KEY: 'sk-interop-stand-in',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      ENABLE_TOOL_SEARCH: 'false',
    });
    const d = await startDaemon({ home: agentteamHome, env });
    try {
      const posted = await post(d, 'dm:claudeask', 'Please print the marker.');
      const turnId = posted.turns[0]!.turnId;
      const asked = await pendingApproval(d, Date.now() + 120_000);
      const shown = JSON.stringify(asked);
      if (!shown.includes(marker) || !shown.includes('claudeask'))
        throw new Error(`the inbox row does not name the command and the agent: ${shown}`);
      const decided = await d.cli(['approval', 'decide', asked.id, 'approve']);
      if (decided.code !== 0)
        throw new Error(`approval decide failed: ${decided.stdout}${decided.stderr}`);
      const t = await waitTurn(d, turnId, undefined, TURN_TIMEOUT_MS);
      if (t.state !== 'succeeded' || t.replied !== true) {
        const logs = await d.cli(['daemon', 'logs', '--limit', '40']);
        throw new Error(`turn ${t.id} ended ${t.state} (${t.error})\n${tail(logs.stdout, 3000)}`);
      }
      if (!m.results.some((r) => r.includes(marker)))
        throw new Error(
          `the command's output never reached the model: ${tail(m.results.join('\n'))}`,
        );
      const history = await d.cli(['message', 'history', '--target', 'dm:claudeask']);
      if (!history.stdout.includes(`bash said: ${marker}`))
        throw new Error(`no reply carrying the command's output:\n${history.stdout}`);
      return {
        version: await versionOf(ctx, 'claude --version'),
        detail: `claude -p in a delivered turn asked to run \`${command}\` (no bypass): the PermissionRequest hook filed ${asked.id} in approval list; approve → the command ran and its output reached the model and the DM`,
      };
    } finally {
      await d.close();
    }
  } finally {
    await m.close();
    rmSync(root, { recursive: true, force: true });
  }
}
