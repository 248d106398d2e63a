import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { buildRuntimeEnv } from '../../lib/runtime-env.js';
import type { Authorization } from '../auth/authorization.js';
import type { AuthorizationStore } from '../auth/store.js';
import type { LaunchHook } from '../drivers/launch-hook.js';
import type { AgentConfig } from '../profile/types.js';
import type { RuntimeKind } from '../../catalog/runtimes.js';
import { appServerInstructionsFile } from '../drivers/codex-app-server.js';
import type { ClaimedTurn } from '../store/turn-rows.js';
import type { MessageText, TurnLookup } from '../store/turn-lookup.js';
import type { TurnStore } from '../store/turns.js';
import { runtimeCommand, TurnLaunchError } from './command.js';
import { markLaunch } from './marks.js';
import { turnPrompt } from './prompt.js';
import { modelSettings } from './model-env.js';

/** What launching a turn uses of the daemon. */
export interface LaunchDeps {
  readonly auths: AuthorizationStore;
  readonly launchHook?: LaunchHook | undefined;
  readonly urls: (serverId: string, agentId: string) => { execBaseUrl: string; mcpUrl: string };
  readonly turns: TurnStore;
  readonly lookup: TurnLookup;
  /** Where an agent with no allowed path works: `<home>/turns/<agent>`. */
  readonly home: string;
  /** The environment runtimes inherit (the daemon's own). */
  readonly env: NodeJS.ProcessEnv;
}

/** A turn ready to start: its authorization is live until the runner revokes it. */
export interface PreparedTurn {
  readonly auth: Authorization;
  readonly argv: string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly promptFile: string;
  readonly sessionId: string | null;
  readonly resumed: boolean;
  /** The session of the agent's last turn on this target (what the runtime was asked to resume). */
  readonly previous: string | null;
  /** The runtime names its session in its output (OpenCode): the runner reads it from there. */
  readonly sessionInOutput: boolean;
  /** Set when the runtime is `codex app-server`: what the conversation with it needs. */
  readonly appServer: AppServerTurn | null;
}

/** A Codex turn: the prompt and the layered instructions (the thread to resume is `previous`). */
interface AppServerTurn {
  readonly prompt: string;
  readonly developerInstructions: string;
}

/** Codex runs turns as an app server, whichever of its two runtime kinds the agent names (a declared command runs as declared). */
const launchRuntime = (agent: AgentConfig): RuntimeKind =>
  agent.runtime === 'codex' && !agent.launch.command ? 'codex-app-server' : agent.runtime;

function workdirOf(agent: AgentConfig, home: string): string {
  const dir = agent.launch.workdir ?? agent.allowedPaths[0] ?? join(home, 'turns', agent.id);
  if (dir === join(home, 'turns', agent.id)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok)
    throw new TurnLaunchError('launch_failed', `the working directory ${dir} is not a directory`);
  return dir;
}

async function messagesOf(d: LaunchDeps, turn: ClaimedTurn) {
  const found: MessageText[] = [];
  const missing: string[] = [];
  for (const id of turn.messageIds) {
    const m = await d.lookup.message(turn.serverId, id);
    if (m) found.push(m);
    else missing.push(id);
  }
  return { found, missing };
}

/**
 * Prepares one turn exactly as `agentteam run` prepares a runtime: a new
 * authorization bound to the turn (its target and newest message, so the
 * knowledge tools answer for it, its calls' audit rows and spans name it), the driver's additions, the environment
 * with the daemon-owned variables stripped and the canonical ones set, the
 * daemon's `agentteam` first on PATH; then the prompt file in the
 * authorization's private directory. Nothing is left live on failure.
 */
export async function prepareTurn(
  d: LaunchDeps,
  turn: ClaimedTurn,
  agent: AgentConfig,
  traceparent: string | null,
): Promise<PreparedTurn> {
  const cwd = workdirOf(agent, d.home);
  const { found, missing } = await messagesOf(d, turn);
  const caller = { serverId: turn.serverId, agentId: agent.id };
  const previous = await d.turns.sessions.get(caller, turn.target, agent.runtime);
  const newest = found.at(-1);
  const runtime = launchRuntime(agent);
  markLaunch(turn.id, 'lease');
  const auth = await d.auths.create({
    serverId: turn.serverId,
    agentId: agent.id,
    runId: turn.id,
    turnId: turn.id,
    turnTrace: traceparent,
    workdir: cwd,
    runtime,
    turn: newest ? { target: turn.target, messageId: newest.id } : null,
  });
  markLaunch(turn.id, 'leased');
  try {
    const { execBaseUrl, mcpUrl } = d.urls(turn.serverId, agent.id);
    const additions = d.launchHook?.(
      auth,
      runtime,
      mcpUrl,
      { CODEX_HOME: d.env.CODEX_HOME || join(homedir(), '.codex') },
      null,
    ) ?? { env: {}, args: [] };
    const model = modelSettings(agent, d.env);
    const env = buildRuntimeEnv(
      d.env,
      { execBaseUrl, tokenFile: auth.tokenFile, mcpUrl },
      { ...model.env, ...additions.env },
    );
    const command = runtimeCommand(agent, previous, env.PATH);
    const direct = !additions.argsFor || basename(command.argv[0]!) === additions.argsFor;
    const argv = direct
      ? [command.argv[0]!, ...additions.args, ...model.args, ...command.argv.slice(1)]
      : command.argv;
    env.PATH = [direct ? undefined : additions.shimDir, additions.binDir, env.PATH]
      .filter(Boolean)
      .join(delimiter);
    if (direct && additions.tokenEnv)
      env[additions.tokenEnv] = readFileSync(auth.tokenFile, 'utf8').trim();
    env.AGENTTEAM_TURN_ID = turn.id;
    env.AGENTTEAM_TURN_TARGET = turn.target;
    if (traceparent !== null) env.TRACEPARENT = traceparent;
    const promptFile = join(auth.dir, 'prompt.txt');
    const prompt = turnPrompt(agent, turn.target, found, missing);
    writeFileSync(promptFile, prompt, { mode: 0o600 });
    return {
      auth,
      argv,
      env,
      cwd,
      promptFile,
      sessionId: command.sessionId,
      resumed: command.resumed,
      previous,
      sessionInOutput: command.sessionInOutput,
      appServer: command.appServer
        ? {
            prompt,
            developerInstructions: readFileSync(appServerInstructionsFile(auth.dir), 'utf8'),
          }
        : null,
    };
  } catch (err) {
    await d.auths.revoke(auth.id, 'launch_abort');
    throw err;
  }
}
