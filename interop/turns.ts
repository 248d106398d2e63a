import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../devkit/daemon.js';
import { post, waitTurn, type Turn } from '../devkit/turns.js';
import { userCodexConfig } from './codex.js';
import type { StandIn } from './model-standins.js';
import { isolatedEnv, tail, versionOf, type CheckContext, type CheckResult } from './run-under.js';
import { replyContent, startAnthropicTurnStandIn, startCodexTurnStandIn } from './turn-standins.js';

/**
 * Delivered turns with real runtimes: a daemon of its own (its runtimes
 * inherit its environment, so it runs in a fresh HOME with every proxy at a
 * closed port) whose profile has one agent of the runtime, its model
 * endpoint the stand-in. A person's DM starts a turn; the runtime answers
 * the exact target with replyTo through agentteam's tool; the next DMs
 * resume the same session, and the stand-in finds each exchange in the
 * requests of the turn after it.
 */
interface TurnCase {
  readonly agent: Record<string, unknown>;
  readonly standIn: () => Promise<StandIn>;
  /** The user's own files in the fresh HOME (the Codex home). */
  readonly setup?: (home: string, standIn: StandIn) => void;
  readonly env?: Record<string, string>;
  /** Appended to the stand-in's URL for the profile's baseUrl (an SDK that wants `/v1` in it). */
  readonly baseUrlPath?: string;
}

const TURN_TIMEOUT_MS = 180_000;
/** One DM a turn; the third shows a resumed session resumes again. */
const QUESTIONS = [
  'What did we ship yesterday?',
  'And what is left for today?',
  'Anything blocked?',
] as const;
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
            baseUrl: c.agent.baseUrl === null ? undefined : m.url + (c.baseUrlPath ?? ''),
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
      const done: Awaited<ReturnType<typeof turn>>[] = [];
      for (const q of QUESTIONS) done.push(await turn(q));
      const history = await d.cli(['message', 'history', '--target', `dm:${id}`]);
      const replies = (JSON.parse(history.stdout).data.messages as Reply[]).filter(
        (r) => r.author === `agent:${id}`,
      );
      for (const { messageId } of done) {
        const reply = replies.find((r) => r.replyTo === messageId);
        if (reply?.content !== replyContent(messageId))
          throw new Error(`no reply to ${messageId} in dm:${id}:\n${history.stdout}`);
      }
      const session = done[0]!.t.sessionId;
      if (!session || done[0]!.t.resumed)
        throw new Error(`the first turn started no session: ${JSON.stringify(done[0]!.t)}`);
      const carried: number[] = [];
      for (let k = 1; k < done.length; k++) {
        const { t, at } = done[k]!;
        if (t.sessionId !== session || !t.resumed)
          throw new Error(`turn ${k + 1} did not resume ${session}: ${JSON.stringify(t)}`);
        // Its model requests carry the exchange before it: that message and the reply sent to it.
        const before = done[k - 1]!.messageId;
        const requests = m.seen.slice(at, done[k + 1]?.at).map((x) => JSON.stringify(x.body));
        if (!requests.some((r) => r.includes(before) && r.includes(replyContent(before))))
          throw new Error(
            `no request of turn ${k + 1} carried the exchange before it\n${tail(requests.join('\n'), 2000)}`,
          );
        carried.push(requests.length);
      }
      // The profile's header values reached every request the runtime made to the model.
      const headers = Object.entries((c.agent.headers ?? {}) as Record<string, string>);
      for (const [name, value] of headers) {
        const missing = m.seen.filter((x) => x.headers[name.toLowerCase()] !== value);
        if (missing.length > 0)
          throw new Error(
            `${missing.length} of ${m.seen.length} model requests lacked the profile header ${name}`,
          );
      }
      const sent = headers.length
        ? `; every model request (${m.seen.length}) carried the profile's header${headers.length > 1 ? 's' : ''} ${headers.map(([n]) => n).join(', ')}`
        : '';
      return `${done.length} DMs to ${id}: each answered in dm:${id} with replyTo (content ${replyContent('<id>')}); turns 2 and 3 resumed session ${session}, their model requests (${carried.join(', ')}) carried the exchange before them${sent}`;
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
      headers: { 'X-Interop-Team': 'interop-header-value' },
      model: 'sonnet',
      launch: { binary: join(ctx.binDir, 'claude'), deadlineSeconds: 170 },
    },
    standIn: () => startAnthropicTurnStandIn('mcp__agentteam__message_send'),
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
      headers: { 'X-Interop-Team': 'interop-header-value' },
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

export async function checkOpencodeTurns(ctx: CheckContext): Promise<CheckResult> {
  const detail = await runTurnCase(ctx, {
    agent: {
      id: 'opencodeturn',
      runtime: 'opencode',
      // OpenCode's own Anthropic provider, its endpoint the stand-in; a model name its catalogue lacks.
      model: 'anthropic/stand-in',
      apiKeyEnv: 'INTEROP_STANDIN_KEY',
      headers: { 'X-Interop-Team': 'interop-header-value' },
      launch: { binary: join(ctx.binDir, 'opencode'), deadlineSeconds: 170 },
    },
    // The Anthropic SDK OpenCode uses takes the base URL with its version.
    baseUrlPath: '/v1',
    standIn: () => startAnthropicTurnStandIn('agentteam_message_send'),
    env: {
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    },
  });
  return {
    version: await versionOf(ctx, 'opencode --version'),
    detail: `opencode run --format json, then --session with the sessionID of its events, prompt on stdin: ${detail}`,
  };
}
