import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runUnder, tail, versionOf, type CheckContext, type CheckResult } from './run-under.js';
import { userCodexConfig } from './codex.js';
import { startAppServerStandIn } from './app-server-standin.js';

interface GateLine {
  event: string;
  threadId: string;
  role: string;
  tool?: string;
  decision?: string;
  parentThreadId?: string | null;
}

/**
 * `agentteam run --runtime codex-app-server -- codex app-server`: the daemon
 * drives the pinned Codex over JSON-RPC against the stand-in. The primary
 * thread sends (allowed), then delegates with Codex's own spawn_agent; the
 * spawned thread's message_send is refused by the gate with the
 * return-to-leader error and its message_history_read answered. The thread
 * ids are Codex's: the daemon log must show both decisions with them, the
 * child's parent being the primary.
 */
export async function checkCodexAppServer(ctx: CheckContext): Promise<CheckResult> {
  const m = await startAppServerStandIn();
  try {
    const marker = 'interop-appserver-1';
    const configText = userCodexConfig(m.url, '[features]\nmulti_agent_v2 = true\n');
    let after = '';
    const logBefore = readLog(ctx);
    const ran = await runUnder(ctx, {
      runtime: 'codex-app-server',
      agent: 'appserver',
      ttl: 30,
      timeoutMs: 180_000,
      script: '',
      runArgs: [
        '--prompt',
        `Send ${marker} to channel:interop, then have a helper read the channel.`,
      ],
      command: ['codex', 'app-server'],
      env: { INTEROP_STANDIN_KEY: 'sk-interop-stand-in' },
      setup: (home) => {
        mkdirSync(join(home, '.codex'), { recursive: true });
        writeFileSync(join(home, '.codex', 'config.toml'), configText);
      },
      inspect: (home) => {
        after = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
      },
    });
    const fail = (why: string) =>
      new Error(
        `${why}\nexit ${ran.code}\nstdout: ${tail(ran.stdout)}\nstderr: ${tail(ran.stderr)}\ncalls: ${JSON.stringify(m.calls).slice(0, 1500)}`,
      );
    if (ran.code !== 0) throw fail('the run did not complete');
    if (after !== configText) throw fail("the user's config.toml changed");
    const call = (who: string, tool: string) =>
      m.calls.find((c) => c.who === who && c.tool === tool);
    const sent = call('primary', 'message_send');
    if (!sent?.output?.includes(`"content":"${marker}"`))
      throw fail("the primary thread's message_send did not land");
    if (!call('primary', 'spawn_agent')?.output) throw fail('the primary thread did not delegate');
    const refused = call('child', 'message_send');
    if (
      !refused?.output?.includes('not available to a delegated child thread') ||
      !refused.output.includes('return your result to your leader')
    ) {
      throw fail("the child's message_send was not refused with the return-to-leader error");
    }
    const read = call('child', 'message_history_read');
    if (!read?.output?.includes(`"content":"${marker}"`))
      throw fail("the child's message_history_read got no result");
    const history = await ctx.daemon.cli([
      'message',
      'history',
      '--target',
      'channel:interop',
      '--limit',
      '50',
    ]);
    if (!history.stdout.includes(marker) || history.stdout.includes('interop-child-send'))
      throw fail(`the channel holds the wrong messages:\n${history.stdout}`);
    // The daemon log: threads and decisions with Codex's thread ids.
    const lines = readLog(ctx)
      .slice(logBefore.length)
      .split('\n')
      .filter((l) => l.includes('"codex_'))
      .map((l) => JSON.parse(l) as GateLine);
    const primary = lines.find((l) => l.event === 'codex_thread' && l.role === 'primary')?.threadId;
    const childLine = lines.find((l) => l.event === 'codex_thread' && l.role === 'child');
    if (!primary || !childLine || childLine.parentThreadId !== primary)
      throw fail(
        `the daemon log does not name the primary and its child:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
      );
    const decision = (threadId: string, tool: string) =>
      lines.find((l) => l.event === 'codex_tool_gate' && l.threadId === threadId && l.tool === tool)
        ?.decision;
    const want = [
      [primary, 'message_send', 'allowed'],
      [childLine.threadId, 'message_send', 'refused'],
      [childLine.threadId, 'message_history_read', 'allowed'],
    ] as const;
    for (const [thread, tool, d] of want) {
      if (decision(thread, tool) !== d)
        throw fail(
          `the daemon log has no "${d}" for ${tool} from ${thread}:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
        );
    }
    return {
      version: `${await versionOf(ctx, 'codex --version')} app-server`,
      detail:
        `agentteam run --runtime codex-app-server -- codex app-server: primary thread ${primary} sent (allowed); its spawn_agent child ${childLine.threadId} ` +
        'was refused message_send (return to leader) and read the channel; both decisions in daemon.log with the thread ids',
    };
  } finally {
    await m.close();
  }
}

function readLog(ctx: CheckContext): string {
  try {
    return readFileSync(join(ctx.daemon.home, 'daemon.log'), 'utf8');
  } catch {
    return '';
  }
}
