import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type SpawnedDaemon } from './daemon.js';
import { OperatorCallError, type OperatorCallOutput } from '../lib/operator-client.js';
import { operatorOf } from './operator.js';
import { answerRuntime } from './turns.js';

/**
 * A daemon for the console's conversation tests. The profile names the
 * person `ada` (so the console writes as `human:ada`), a team `crew`
 * (handle `crew`) of `a1`, and agents that run the fixture runtime: `a1`
 * answers at once; `gated` sleeps 1.5 s, then waits for the file `gate`
 * before answering, so one turn can be held running while the next waits
 * queued behind it. With `broken`, also `broken`, whose profile entry names
 * no runtime to start (its turns fail with `no_runtime`).
 */
export async function startConversationDaemon(
  opts: { broken?: boolean } = {},
): Promise<{ d: SpawnedDaemon; gate: string }> {
  const home = mkdtempSync(join(tmpdir(), 'agentteam-convo-'));
  const work = join(home, 'work');
  const gate = join(home, 'gate');
  mkdirSync(work);
  const agent = (id: string, displayName: string, extra: string[]) => ({
    id,
    displayName,
    runtime: 'generic',
    filesystem: { allowedPaths: [work] },
    launch: { command: answerRuntime(extra) },
  });
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      person: 'ada',
      agents: [
        agent('a1', 'Agent One', []),
        agent('gated', 'Gated', ['sleep', '1500', 'wait', gate]),
        ...(opts.broken
          ? [{ id: 'broken', runtime: 'generic', filesystem: { allowedPaths: [work] } }]
          : []),
      ],
      teams: [
        { teamId: 'crew', displayName: 'The crew', members: [{ kind: 'agent', handle: 'a1' }] },
      ],
    }),
  );
  return { d: await startDaemon({ home }), gate };
}

/** One page of `conversations.list` (the operator row the console reads), or the refusal's status and code. */
export async function conversations(
  d: SpawnedDaemon,
  query: { person?: string; limit?: string; cursor?: string } = {},
): Promise<{
  status: number;
  data: OperatorCallOutput<'conversations.list'>;
  error?: { code: string };
}> {
  try {
    const data = await operatorOf(d).call('conversations.list', {
      query: { serverId: 'local', ...query },
    });
    return { status: 200, data };
  } catch (err) {
    if (!(err instanceof OperatorCallError)) throw err;
    return { status: err.status, data: null as never, error: { code: err.code } };
  }
}
