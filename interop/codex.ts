import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenAIStandIn } from './model-standins.js';
import {
  expectMarkers,
  expectRounds,
  ROUNDS,
  rotationLoop,
  runUnder,
  sentThrough,
  tail,
  versionOf,
  type CheckContext,
  type CheckResult,
} from './run-under.js';

/**
 * The Codex CLI check: `codex exec` under `agentteam run --runtime codex`
 * against a stand-in model provider configured in the user's own Codex
 * home, which must stay as the user wrote it.
 */

/** A user's own Codex home: a provider pointing at the stand-in, an approval setting, a model; nothing of agentteam's. */
export function userCodexConfig(standInUrl: string, extra = '', policy = 'never'): string {
  return [
    "# The interop user's own Codex configuration; agentteam must leave it as it is.",
    'model_provider = "standin"',
    'model = "gpt-5"',
    `approval_policy = "${policy}"`,
    'developer_instructions = "interop-user-instructions: answer briefly."',
    extra,
    '[model_providers.standin]',
    'name = "standin"',
    `base_url = "${standInUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "INTEROP_STANDIN_KEY"',
    '',
  ].join('\n');
}

/** The text of every developer/system item a Responses request carried, and its instructions. */
export function instructionsOf(body: any): string {
  const items: any[] = Array.isArray(body?.input) ? body.input : [];
  const dev = items
    .filter((i) => i?.role === 'developer' || i?.role === 'system')
    .map((i) => text(i.content));
  return [text(body?.instructions ?? ''), ...dev].join('\n');
}

const text = (x: unknown): string => (typeof x === 'string' ? x : JSON.stringify(x ?? ''));

/** Rollout transcripts under a Codex home's sessions/ folder. */
function transcriptsIn(codexHome: string): string[] {
  const dir = join(codexHome, 'sessions');
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => /rollout-.*\.jsonl$/.test(f))
    .map((f) => join(dir, f));
}

export async function checkCodex(ctx: CheckContext): Promise<CheckResult> {
  const m = await startOpenAIStandIn();
  try {
    // No -c flag of our own: provider, model and approval policy come from the user's config.toml,
    // agentteam's server, header helper, tool approval mode and guidance from the driver.
    const cmd = 'codex exec --skip-git-repo-check "Send interop-codex-$i" < /dev/null';
    const configText = userCodexConfig(m.url);
    let after = '';
    let transcripts: string[] = [];
    let analyzed: any = null;
    const ran = await runUnder(ctx, {
      runtime: 'codex',
      agent: 'codex',
      ttl: 6,
      timeoutMs: 180_000,
      script: rotationLoop(cmd),
      env: { INTEROP_STANDIN_KEY: 'sk-interop-stand-in' },
      setup: (home) => {
        mkdirSync(join(home, '.codex'), { recursive: true });
        writeFileSync(join(home, '.codex', 'config.toml'), configText);
      },
      inspect: async (home) => {
        after = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
        transcripts = transcriptsIn(join(home, '.codex'));
        if (transcripts[0]) {
          const r = await ctx.daemon.cli([
            'token',
            'analyze',
            '--runtime',
            'codex',
            '--session',
            transcripts[0],
            '--json',
          ]);
          analyzed = r.code === 0 ? JSON.parse(r.stdout) : { failed: r };
        }
      },
    });
    expectRounds(ran, 'codex');
    expectMarkers(sentThrough(m), 'codex', ran);
    if (after !== configText)
      throw new Error(`the user's config.toml changed during the run:\n${after}`);
    const requests = m.seen.filter((x) => x.path.endsWith('/responses'));
    const guided = requests.filter((x) => {
      const ins = instructionsOf(x.body);
      return (
        ins.includes('# AgentTeam tools') &&
        ins.includes('mcp__agentteam__message_send') &&
        ins.includes('interop-user-instructions')
      );
    });
    if (requests.length === 0 || guided.length !== requests.length) {
      throw new Error(
        `${guided.length} of ${requests.length} model requests carried the user's instructions and agentteam's guidance\n${tail(instructionsOf(requests[0]?.body), 800)}`,
      );
    }
    if (transcripts.length < ROUNDS)
      throw new Error(
        `${transcripts.length} Codex transcripts in the user's sessions folder after the run, not ${ROUNDS}`,
      );
    const sent = analyzed?.session?.tools?.find?.((x: any) => x.name === 'message_send');
    if (!sent || sent.calls < 1)
      throw new Error(
        `token analyze --session did not count message_send in ${transcripts[0]}: ${JSON.stringify(analyzed).slice(0, 600)}`,
      );
    return {
      version: await versionOf(ctx, 'codex --version'),
      detail:
        `agentteam run --runtime codex -- sh -c 'codex exec ...' (PATH shim, -c layer over the user's config.toml, which stayed byte-identical): ` +
        `the user's provider served ${requests.length} requests, each with the user's instructions and agentteam's guidance; mcp__agentteam__message_send ran ${ROUNDS} times, ` +
        `each on a new generation, with no flag for approval; ${transcripts.length} transcripts left in the user's sessions/, token analyze --session counted ${sent.calls} message_send call(s)`,
    };
  } finally {
    await m.close();
  }
}
