import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_SERVER } from '../../catalog/ids.js';
import { startDaemon, type SpawnedDaemon } from '../../devkit/daemon.js';
import { closeHttp } from '../../devkit/http.js';
import { operatorOf } from '../../devkit/operator.js';
import { freshDatabase } from '../../devkit/pg.js';
import { answerRuntime, type Turn } from '../../devkit/turns.js';
import { scale } from '../../devkit/scale.js';

/**
 * Many daemons, one team, delivered turns: real daemons (spawned CLI,
 * separate homes, each its own profile) on one embedded PostgreSQL
 * database. Messages are posted through the operator API of either daemon;
 * each queued turn is claimed by exactly one daemon whose profile defines
 * the agent, and a daemon that stops beating loses its running turns to
 * `interrupted` once the stale time has passed.
 */

after(() => closeHttp());

const ENDED = ['succeeded', 'failed', 'cancelled', 'interrupted', 'dropped'];

/** A home with `profile.json` holding `agents` (ids) that run the fixture runtime with `args`. */
function home(agents: readonly string[], args: readonly string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-turns-pg-'));
  const launch = { command: answerRuntime(args) };
  writeFileSync(
    join(dir, 'profile.json'),
    JSON.stringify({
      agents: agents.map((id) => ({ id, runtime: 'generic', launch })),
      teams: [
        {
          teamId: 'team1',
          handle: 'crew',
          members: ['a01', 'a02', 'a03'].map((handle) => ({ kind: 'agent', handle })),
        },
      ],
    }),
  );
  return dir;
}

async function startPair(
  t: { after(fn: () => Promise<void>): void },
  url: string,
  profiles: [string, string],
  env: NodeJS.ProcessEnv = {},
): Promise<[SpawnedDaemon, SpawnedDaemon]> {
  const started = await Promise.allSettled(
    profiles.map((h) => startDaemon({ home: h, args: ['--store', url], env })),
  );
  // Whichever started is stopped after the test, even when the other did not.
  for (const r of started) if (r.status === 'fulfilled') t.after(() => r.value.close());
  return started.map((r) => {
    if (r.status === 'rejected') throw r.reason;
    return r.value;
  }) as [SpawnedDaemon, SpawnedDaemon];
}

/** Every turn of the server, read through one daemon's operator reads. */
async function allTurns(d: SpawnedDaemon): Promise<Turn[]> {
  const op = operatorOf(d);
  const out: Turn[] = [];
  let cursor: string | undefined;
  do {
    const page = await op.call('reads.turn.list', {
      params: { serverId: DEFAULT_SERVER },
      body: { limit: 100, ...(cursor ? { cursor } : {}) },
    });
    out.push(...(page.turns as Turn[]));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

async function turnOf(d: SpawnedDaemon, id: string): Promise<Turn> {
  const r = await operatorOf(d).call('reads.turn.get', {
    params: { serverId: DEFAULT_SERVER },
    body: { id },
  });
  return r.turn as Turn;
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Run {
  pid: number;
  turn: string;
  mcpUrl: string;
}

/** What the fixture runtime recorded, one file per run, in the order they started (by pid); a file still being written is skipped. */
function records(dir: string): Run[] {
  const out: Run[] = [];
  for (const f of readdirSync(dir)) {
    try {
      out.push(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Run);
    } catch {
      // written at this moment: seen on the next look
    }
  }
  return out.sort((x, y) => x.pid - y.pid);
}

async function post(d: SpawnedDaemon, target: string, content: string) {
  return operatorOf(d).call('messages.post', {
    body: { serverId: DEFAULT_SERVER, target, author: 'human:ada', content },
  });
}

const AGENTS = Array.from({ length: 20 }, (_, i) => `a${String(i + 1).padStart(2, '0')}`);

/** Message i: a DM, or a channel message naming one to three agents, sometimes the team @crew. */
function message(i: number): { target: string; content: string; to: string[] } {
  const pick = (k: number) => AGENTS[k % 20]!;
  if (i % 4 === 0) return { target: `dm:${pick(i)}`, content: `job ${i}`, to: [pick(i)] };
  const named = [pick(i), pick(i * 7 + 3), pick(i * 11 + 5)].slice(0, 1 + (i % 3));
  const to = new Set(named);
  let content = `job ${i} for ${named.map((a) => `@${a}`).join(' ')}`;
  if (i % 10 === 5) {
    content += ' and @crew';
    for (const a of ['a01', 'a02', 'a03']) to.add(a);
  }
  return { target: `channel:room${i % 3}`, content, to: [...to] };
}

/** Messages: 80 in `npm test` (162 pairs), 200 at soak scale (406 pairs; devkit/scale.ts). Every agent is named either way. */
const MESSAGES = scale(80, 200);

test(`two daemons, ${MESSAGES} messages to 20 agents: every (message, agent) pair in exactly one turn, every turn run once`, async (t) => {
  const url = await freshDatabase();
  const record = mkdtempSync(join(tmpdir(), 'agentteam-turns-pg-record-'));
  t.after(async () => rmSync(record, { recursive: true, force: true }));
  const profiles: [string, string] = [
    home(AGENTS, ['record', record]),
    home(AGENTS, ['record', record]),
  ];
  const daemons = await startPair(t, url, profiles);

  // Posted eight at a time, alternately through each daemon.
  const pairs = new Map<string, string>(); // `${messageId} ${agentId}` → the turn the post named
  let next = 0;
  const poster = async () => {
    for (let i = next++; i < MESSAGES; i = next++) {
      const m = message(i);
      const r = await post(daemons[i % 2]!, m.target, m.content);
      assert.deepEqual(r.turns.map((x) => x.agentId).sort(), [...m.to].sort(), m.content);
      for (const q of r.turns) {
        assert.equal(q.state, 'queued');
        pairs.set(`${r.message.id} ${q.agentId}`, q.turnId);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, poster));
  assert.ok(pairs.size > MESSAGES * 1.5, `${pairs.size} pairs`);

  const turns = await until('every turn to end', 90_000, async () => {
    const all = await allTurns(daemons[0]);
    return all.every((x) => ENDED.includes(x.state)) ? all : undefined;
  });

  // Every pair in exactly one turn, the one the post answered with; no turn names anything else.
  const seen = new Map<string, number>();
  for (const turn of turns)
    for (const id of turn.messageIds) {
      const key = `${id} ${turn.agentId}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      assert.equal(pairs.get(key), turn.id, `${key} is in turn ${turn.id}`);
    }
  assert.equal(seen.size, pairs.size);
  assert.deepEqual(
    [...seen.values()].filter((n) => n !== 1),
    [],
  );
  assert.deepEqual(
    turns.filter((x) => x.state !== 'succeeded' || x.replied !== true),
    [],
  );

  // Every turn ran exactly once: one record per run, each naming its turn.
  const runs = records(record);
  assert.equal(readdirSync(record).length, runs.length);
  assert.equal(runs.length, turns.length);
  assert.deepEqual(runs.map((r) => r.turn).sort(), turns.map((x) => x.id).sort());
  // Both daemons claimed turns (the runtime's MCP URL names the daemon it was started by).
  const ranBy = new Set(runs.map((r) => new URL(r.mcpUrl).port));
  assert.deepEqual([...ranBy].sort(), daemons.map((d) => new URL(d.url).port).sort());
});

test('a daemon that stops beating loses its running turn to the other, which never claims an agent outside its profile', async (t) => {
  const url = await freshDatabase();
  const record = mkdtempSync(join(tmpdir(), 'agentteam-turns-pg-record-'));
  t.after(async () => rmSync(record, { recursive: true, force: true }));
  // Only A defines `slow`; B defines another agent. A turn is stale after 3 s without a heartbeat
  // (each daemon beats every 750 ms).
  const [a, b] = await startPair(
    t,
    url,
    [home(['slow'], ['record', record, 'sleep', '60000']), home(['other'], [])],
    { AGENTTEAM_TEST_TURN_STALE_MS: '3000' },
  );
  const first = (await post(b, 'dm:slow', 'one')).turns;
  // B's profile has no `slow`: a message through B queues nothing for it.
  assert.deepEqual(first, []);
  const t1 = (await post(a, 'dm:slow', 'one')).turns[0]!.turnId;
  const t2 = (await post(a, 'channel:ops', '@slow two')).turns[0]!.turnId;
  const t3 = (await post(a, 'channel:dev', '@slow three')).turns[0]!.turnId;
  const started = (n: number) =>
    until(`run ${n} of slow`, 20_000, async () => {
      const r = records(record);
      return r.length >= n ? r[r.length - 1] : undefined;
    });
  const run1 = await started(1);
  assert.equal((await turnOf(b, t1)).state, 'running');

  // A frozen: its heartbeats stop, B marks t1 interrupted; thawed, A stops the runtime it still ran.
  process.kill(a.pid, 'SIGSTOP');
  const frozenAt = Date.now();
  let interrupted: Turn;
  try {
    interrupted = await until('t1 interrupted by B', 15_000, async () => {
      const x = await turnOf(b, t1);
      return x.state === 'interrupted' ? x : undefined;
    });
  } finally {
    process.kill(a.pid, 'SIGCONT');
  }
  assert.equal(interrupted.error, 'daemon_stopped');
  assert.ok(Date.parse(interrupted.finishedAt!) - frozenAt >= 1000, 'not before the stale time');
  await until(`runtime ${run1.pid} stopped by A`, 10_000, async () =>
    alive(run1.pid) ? undefined : true,
  );
  assert.equal((await turnOf(a, t1)).state, 'interrupted', 'A did not record it over');

  // A claims the next turn; killed with -9 while it runs, B interrupts it after the stale time.
  const run2 = await started(2);
  assert.equal(run2.turn, t2);
  a.kill9();
  const killedAt = Date.now();
  const t2End = await until('t2 interrupted by B', 15_000, async () => {
    const x = await turnOf(b, t2);
    return x.state === 'interrupted' ? x : undefined;
  });
  assert.equal(t2End.error, 'daemon_stopped');
  assert.ok(Date.parse(t2End.finishedAt!) - killedAt >= 1000, 'not before the stale time');
  // t3 stays queued: B looks every 750 ms and never claims an agent its profile lacks.
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await turnOf(b, t3)).state, 'queued');
  assert.deepEqual(
    records(record).map((r) => r.turn),
    [t1, t2],
    'no turn ran twice',
  );
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
