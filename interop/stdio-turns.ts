import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon } from '../devkit/daemon.js';
import { spawnServe } from '../devkit/serve-stdio.js';
import { SEED_INITIALIZE_PARAMS } from '../devkit/stdio-runs.js';
import { userCodexConfig } from './codex.js';
import { isolatedEnv, tail, versionOf, type CheckContext, type CheckResult } from './run-under.js';
import { startStdioTurnStandIn } from './stdio-turn-standin.js';

const RUN_TIMEOUT_MS = 180_000;
/** A closed loopback port: the user's own provider, which only the profile's baseUrl overrides. */
const DEAD_PROVIDER = 'http://127.0.0.1:9';
const RECORD = 'interop-stdio-1';
const ANSWER = `Record ${RECORD} found.`;
/**
 * Codex's thread tools of multi-agent v2 (a v1 child gets no dynamic tools,
 * so its call would never reach the daemon). Its spawn_agent offers
 * `agent_type`, built-in `explorer` included, only when the user defines a
 * role of their own, so the user's config has one.
 */
const SUBAGENTS =
  '[features]\nmulti_agent_v2 = true\n[agents.notes]\ndescription = "Takes notes for the user."\n';

/**
 * An app drives the real Codex app server through `serve --stdio`: it
 * registers the seed's client tool, opens a session on an agent whose
 * runtime is the pinned Codex (its model the stand-in) and starts a turn.
 * The primary thread calls the app's tool: the call reaches the app with
 * the session and run ids the app was given, and the answer reaches the
 * model. The primary then spawns an inspection child (Codex's `explorer`
 * agent type) that calls the same tool: the daemon refuses it (a delegated
 * thread without a saved scope), so the app sees one call only, and
 * `run.finished` ends the run after the tool result.
 */
export async function checkCodexStdioTurns(ctx: CheckContext): Promise<CheckResult> {
  const m = await startStdioTurnStandIn();
  const root = mkdtempSync(join(tmpdir(), 'agentteam-interop-stdio-'));
  try {
    const home = join(root, 'home');
    const agentteamHome = join(root, 'agentteam');
    for (const dir of [home, agentteamHome]) mkdirSync(dir, { recursive: true });
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex', 'config.toml'), userCodexConfig(DEAD_PROVIDER, SUBAGENTS));
    writeFileSync(
      join(agentteamHome, 'profile.json'),
      JSON.stringify({
        agents: [
          {
            id: 'codexstdio',
            runtime: 'codex',
            baseUrl: m.url,
            apiKeyEnv: 'INTEROP_STANDIN_KEY',
            launch: { binary: join(ctx.binDir, 'codex'), deadlineSeconds: 170 },
          },
        ],
      }),
    );
    const env = isolatedEnv(ctx, home, { INTEROP_STANDIN_KEY: 'sk-interop-stand-in' });
    const d = await startDaemon({ home: agentteamHome, env });
    const app = spawnServe(d);
    try {
      const fail = async (why: string) => {
        const logs = await d.cli(['daemon', 'logs', '--limit', '40']);
        return new Error(
          `${why}\nframes: ${tail(JSON.stringify(app.frames), 2000)}\ncalls: ${JSON.stringify(m.calls).slice(0, 1500)}\nlog: ${tail(logs.stdout, 2500)}`,
        );
      };
      app.send(
        `{"jsonrpc":"2.0","id":"init","method":"initialize","params":${SEED_INITIALIZE_PARAMS.replaceAll('\n', '')}}`,
      );
      const init = await app.next((f) => f.id === 'init', 30_000);
      if (!init.result) throw await fail('the seed initialize was refused');
      const created = await app.request('session.create', { agent: 'codexstdio' }, 'create');
      const sessionId = created.result?.session_id;
      const started = await app.request(
        'turn.start',
        { session_id: sessionId, text: `Please look up record ${RECORD}.` },
        'start',
      );
      const runId = started.result?.run_id;
      if (!sessionId || !runId) throw await fail('no session or run');
      const call = await app.nextCall(RUN_TIMEOUT_MS).catch(async () => {
        throw await fail('no client.tool.call reached the app');
      });
      const data = call.params.data;
      const identity = [data.session_id, data.run_id, data.task_id, data.subagent_id];
      if (JSON.stringify(identity) !== JSON.stringify([sessionId, runId, null, null]))
        throw await fail(`the call carried ${JSON.stringify(identity)}`);
      if (data.name !== 'client__lookup_record' || data.arguments.record_id !== RECORD)
        throw await fail('the call is not the primary thread’s lookup');
      const ack = await app.answer(call, { text: ANSWER, structured: { found: true } });
      if (ack.result?.accepted !== true) throw await fail('the result was not accepted');
      const finished = await app
        .next((f) => f.method === 'run.finished' && f.params.data.run_id === runId, RUN_TIMEOUT_MS)
        .catch(async () => {
          throw await fail('no run.finished');
        });
      if (finished.params.data.status !== 'succeeded')
        throw await fail(`the run ended ${JSON.stringify(finished.params.data)}`);
      if (app.frames.indexOf(finished) < app.frames.indexOf(ack))
        throw await fail('run.finished came before the tool result');
      const asked = (who: string, tool: string) =>
        m.calls.find((c) => c.who === who && c.tool === tool);
      if (!asked('primary', 'client__lookup_record')?.output?.includes(ANSWER))
        throw await fail("the app's answer did not reach the model");
      if (!JSON.stringify(m.spawnSchema).includes('explorer'))
        throw await fail(
          `spawn_agent offers no explorer agent type: ${JSON.stringify(m.spawnSchema)}`,
        );
      const spawned = asked('primary', 'spawn_agent');
      // v2 answers with the child's task path (v1 with its agent id).
      if (!/"(task_name|agent_id)"/.test(spawned?.output ?? ''))
        throw await fail(`the primary thread did not spawn an explorer: ${spawned?.output}`);
      const refused = asked('child', 'client__lookup_record')?.output ?? '';
      if (!/delegated|saved scope/.test(refused))
        throw await fail(`the child's call was not refused by the daemon: ${refused}`);
      const reached = app.frames.filter((f) => f.method === 'client.tool.call').length;
      if (reached !== 1) throw await fail(`${reached} calls reached the app, not 1`);

      return {
        version: `${await versionOf(ctx, 'codex --version')} app-server`,
        detail:
          `serve --stdio (seed initialize) → session.create → turn.start: Codex's primary thread called client__lookup_record, ` +
          `the call carried the app's session ${sessionId} and run ${runId}; run.finished succeeded after the result; ` +
          `its spawn_agent child (agent_type explorer, an inspection) called the tool and the daemon refused it: ${tail(refused, 160)}`,
      };
    } finally {
      await app.close();
      await d.close();
    }
  } finally {
    await m.close();
    rmSync(root, { recursive: true, force: true });
  }
}
