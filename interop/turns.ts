import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../devkit/daemon.js';
import { post, waitTurn, type Turn } from '../devkit/turns.js';
import { userCodexConfig } from './codex.js';
import type { StandIn } from './model-standins.js';
import { isolatedEnv, tail, versionOf, type CheckContext, type CheckResult } from './run-under.js';
import { replyContent, startClaudeTurnStandIn, startCodexTurnStandIn } from './turn-standins.js';

/**
 * Delivered turns with real runtimes: a daemon of its own (its runtimes
 * inherit its environment, so it runs in a fresh HOME with every proxy at a
 * closed port) whose profile has one agent of the runtime, its model
 * endpoint the stand-in. A person's DM starts a turn; the runtime answers
 * the exact target with replyTo through agentteam's tool; a second DM
 * resumes the same session, and the stand-in finds the first exchange in
 * the second turn's requests.
 */
interface TurnCase {
  readonly agent: Record<string, unknown>;
  readonly standIn: () => Promise<StandIn>;
  /** The user's own files in the fresh HOME (the Codex home). */
  readonly setup?: (home: string, standIn: StandIn) => void;
  readonly env?: Record<string, string>;
}

const TURN_TIMEOUT_MS = 180_000;
/** A closed loopback port. */
const DEAD_PROVIDER = 'http://127.0.0.1:9';

interface Reply {
  author: string;
  replyTo: string | null;
  content: string;
}

async function runTurnCase(ctx: CheckContext, c: TurnCase): Promise<string> {
  const m = await c.standIn();
  const root = mkdtempSync(join(tmpdir(), 'agentteam-interop-turns-'));
  try {
    const home = join(root, 'home');
    const work = join(root, 'work');
    const agentteamHome = join(root, 'agentteam');
    for (const dir of [home, work, agentteamHome]) mkdirSync(dir, { recursive: true });
    c.setup?.(home, m);
    const id = String(c.agent.id);
    writeFileSync(
      join(agentteamHome, 'profile.json'),
      JSON.stringify({
        agents: [
          {
            ...c.agent,
            baseUrl: c.agent.baseUrl === null ? undefined : m.url,
            filesystem: { allowedPaths: [work] },
          },
        ],
      }),
    );
    const env = isolatedEnv(ctx, home, {
      INTEROP_STANDIN_KEY: 'sk-interop-stand-in',
      ...c.env,
    });
    const d = await startDaemon({ home: agentteamHome, env });
    try {
      const turn = async (text: string): Promise<{ t: Turn; messageId: string; at: number }> => {
        const at = m.seen.length;
        const posted = await post(d, `dm:${id}`, text);
        if (posted.turns.length !== 1) throw new Error(`queued ${JSON.stringify(posted.turns)}`);
        const t = await waitTurn(d, posted.turns[0]!.turnId, undefined, TURN_TIMEOUT_MS);
        if (t.state !== 'succeeded' || t.replied !== true) {
          const logs = await d.cli(['daemon', 'logs', '--limit', '40']);
          throw new Error(
            `turn ${t.id} ended ${t.state} (${t.error}, exit ${t.exitStatus}, replied ${t.replied})\n${tail(logs.stdout, 3000)}`,
          );
        }
        return { t, messageId: posted.message.id, at };
      };
      const first = await turn('What did we ship yesterday?');
      const second = await turn('And what is left for today?');
      const history = await d.cli(['message', 'history', '--target', `dm:${id}`]);
      const replies = (JSON.parse(history.stdout).data.messages as Reply[]).filter(
        (r) => r.author === `agent:${id}`,
      );
      for (const { messageId } of [first, second]) {
        const reply = replies.find((r) => r.replyTo === messageId);
        if (reply?.content !== replyContent(messageId))
          throw new Error(`no reply to ${messageId} in dm:${id}:\n${history.stdout}`);
      }
      if (!first.t.sessionId || first.t.resumed)
        throw new Error(`the first turn started no session: ${JSON.stringify(first.t)}`);
      if (second.t.sessionId !== first.t.sessionId || !second.t.resumed)
        throw new Error(
          `the second turn did not resume ${first.t.sessionId}: ${JSON.stringify(second.t)}`,
        );
      // The second turn's model requests carry the first exchange: its message and the reply sent.
      const later = m.seen.slice(second.at).map((s) => JSON.stringify(s.body));
      const remembered = later.some(
        (b) => b.includes(first.messageId) && b.includes(replyContent(first.messageId)),
      );
      if (!remembered)
        throw new Error(
          `no request of the second turn carried the first exchange\n${tail(later.join('\n'), 2000)}`,
        );
      return `two DMs to ${id}: both answered in dm:${id} with replyTo (content ${replyContent('<id>')}); the second turn resumed session ${first.t.sessionId}, its ${later.length} model request(s) carried the first exchange`;
    } finally {
      await d.close();
    }
  } finally {
    await m.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export async function checkClaudeTurns(ctx: CheckContext): Promise<CheckResult> {
  const detail = await runTurnCase(ctx, {
    agent: {
      id: 'claudeturn',
      runtime: 'claude',
      apiKeyEnv: 'INTEROP_STANDIN_KEY',
      model: 'sonnet',
      launch: { binary: join(ctx.binDir, 'claude'), deadlineSeconds: 170 },
    },
    standIn: startClaudeTurnStandIn,
    env: {
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      ENABLE_TOOL_SEARCH: 'false',
    },
  });
  return {
    version: await versionOf(ctx, 'claude --version'),
    detail: `claude -p --session-id / --resume, prompt on stdin: ${detail}`,
  };
}

export async function checkCodexTurns(ctx: CheckContext): Promise<CheckResult> {
  const detail = await runTurnCase(ctx, {
    agent: {
      id: 'codexturn',
      runtime: 'codex',
      apiKeyEnv: 'INTEROP_STANDIN_KEY',
      launch: { binary: join(ctx.binDir, 'codex'), deadlineSeconds: 170 },
    },
    standIn: startCodexTurnStandIn,
    // The user's own Codex home (their approval policy, a provider at a closed port): only the
    // provider the profile's baseUrl layers on top reaches the stand-in.
    setup: (home) => {
      mkdirSync(join(home, '.codex'), { recursive: true });
      writeFileSync(join(home, '.codex', 'config.toml'), userCodexConfig(DEAD_PROVIDER));
    },
  });
  return {
    version: `${await versionOf(ctx, 'codex --version')} app-server`,
    detail: `codex app-server, thread/start then thread/resume + turn/start: ${detail}`,
  };
}
