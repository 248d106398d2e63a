import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { BACKENDS, type Case } from '../../devkit/store-contract.js';

/*
 * The store contract (devkit/store-contract.ts), part three: the turn queue
 * across two daemons on one store. The agents here are in neither daemon's
 * profile, so their runners leave these turns alone; the daemons' names
 * (`owner`) are given by hand.
 */

const S = 'local';

const CASES: Case[] = [
  {
    name: 'turns: a message joins the queued turn on its target from either daemon; a full queue drops, visibly',
    async run({ a, b, advance }) {
      const first = await a.services.turns.enqueue(S, 'x1', 'dm:x1', 'msg_1', 2);
      advance(1);
      const joined = await b.services.turns.enqueue(S, 'x1', 'dm:x1', 'msg_2', 2);
      assert.deepEqual([first.joined, joined.joined], [false, true]);
      assert.equal(joined.turn.id, first.turn.id);
      assert.deepEqual(joined.turn.messageIds, ['msg_1', 'msg_2']);
      advance(1);
      const other = await b.services.turns.enqueue(S, 'x1', 'channel:c', 'msg_3', 2);
      assert.equal(other.joined, false);
      advance(1);
      // Two queued turns (dm, channel:c) fill a queue of two: a third target is dropped, recorded.
      const dropped = await a.services.turns.enqueue(S, 'x1', 'channel:d', 'msg_4', 2);
      assert.deepEqual(
        [dropped.turn.state, dropped.turn.error, dropped.joined],
        ['dropped', 'queue_full', false],
      );
      assert.ok(dropped.turn.finishedAt !== null);
      const seen = await b.services.turns.find(S, first.turn.id);
      assert.deepEqual(seen.messageIds, ['msg_1', 'msg_2']);
      assert.deepEqual(await b.services.turns.waiting(['x1', 'x2']), [
        { serverId: S, agentId: 'x1' },
      ]);
      assert.deepEqual(await a.services.turns.waiting(['x2']), []);
    },
  },
  {
    name: 'turns: racing claims from two daemons take each queued turn once, oldest first, never two on one target',
    async run({ a, b, advance }) {
      const ids: string[] = [];
      for (const [i, target] of ['dm:x1', 'channel:c', 'channel:d'].entries()) {
        ids.push((await a.services.turns.enqueue(S, 'x1', target, `msg_${i}`, 10)).turn.id);
        advance(1);
      }
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? b : a).services.turns.claim(S, 'x1', i % 2 ? 'B' : 'A', 2),
        ),
      );
      const won = claims.filter((c) => c !== null);
      // maxRunning 2: the two oldest, each by one daemon.
      assert.deepEqual(won.map((c) => c.id).sort(), ids.slice(0, 2).sort());
      for (const c of won) assert.equal(c.state, 'running');
      // A new message on a busy target queues a new turn, which waits for its target.
      const busy = await b.services.turns.enqueue(S, 'x1', 'dm:x1', 'msg_9', 10);
      assert.equal(busy.joined, false);
      const third = await a.services.turns.claim(S, 'x1', 'A', 5);
      assert.equal(third?.id, ids[2]);
      assert.equal(await b.services.turns.claim(S, 'x1', 'B', 5), null);
      // Once the turn on dm:x1 ends, the message that waited for it is claimed.
      const dm = won.find((c) => c.target === 'dm:x1')!;
      const owner = claims.indexOf(dm) % 2 ? 'B' : 'A';
      assert.equal(
        await a.services.turns.finish(dm.id, owner === 'A' ? 'B' : 'A', { state: 'succeeded' }),
        null,
        'only its owner ends it',
      );
      const done = await a.services.turns.finish(dm.id, owner, {
        state: 'succeeded',
        exitStatus: 0,
        replied: true,
      });
      assert.deepEqual([done?.state, done?.exitStatus, done?.replied], ['succeeded', 0, true]);
      assert.equal(
        await b.services.turns.finish(dm.id, owner, { state: 'failed' }),
        null,
        'ended once',
      );
      assert.equal((await b.services.turns.claim(S, 'x1', 'B', 5))?.id, busy.turn.id);
    },
  },
  {
    name: 'turns: heartbeats keep a claim; a stale one is interrupted once, by whichever daemon looks; retry and cancel',
    async run({ a, b, advance }) {
      const t1 = (await a.services.turns.enqueue(S, 'x1', 'dm:x1', 'msg_1', 10)).turn;
      const t2 = (await a.services.turns.enqueue(S, 'x2', 'dm:x2', 'msg_2', 10)).turn;
      assert.equal((await a.services.turns.claim(S, 'x1', 'A', 1))?.id, t1.id);
      assert.equal((await b.services.turns.claim(S, 'x2', 'B', 1))?.id, t2.id);
      advance(10);
      assert.deepEqual([...(await b.services.turns.heartbeat('B'))], [t2.id]);
      // A stops beating: a turn whose heartbeat is older than the cut-off is interrupted by both at once, once.
      const cut = b.clock.now() - 5;
      const [byA, byB] = await Promise.all([
        a.services.turns.interrupt('', cut),
        b.services.turns.interrupt('', cut),
      ]);
      assert.deepEqual(
        [...byA, ...byB].map((x) => [x.id, x.state, x.error]),
        [[t1.id, 'interrupted', 'daemon_stopped']],
      );
      assert.deepEqual([...(await a.services.turns.heartbeat('A'))], [], 'A no longer holds it');
      assert.equal(await a.services.turns.finish(t1.id, 'A', { state: 'succeeded' }), null);
      // At its start a daemon ends whatever it ran itself, fresh heartbeat or not.
      assert.deepEqual(
        (await b.services.turns.interrupt('B', 0)).map((x) => x.id),
        [t2.id],
      );
      // Retry queues a new turn for the same messages; a queued one cannot be retried, only cancelled.
      const again = await b.services.turns.retry(S, t1.id);
      assert.deepEqual(
        [again.state, again.retryOf, again.messageIds],
        ['queued', t1.id, ['msg_1']],
      );
      await assert.rejects(a.services.turns.retry(S, again.id), { code: 'invalid_transition' });
      const cancelled = await a.services.turns.cancelQueued(S, again.id);
      assert.deepEqual([cancelled?.state, cancelled?.error], ['cancelled', 'cancelled']);
      assert.equal(await b.services.turns.cancelQueued(S, again.id), null);
      assert.equal(await b.services.turns.claim(S, 'x1', 'B', 1), null);
    },
  },
  {
    name: "turns: twenty agents' queues filled and claimed at once from two daemons: every message in one turn, and no transaction ran again",
    async run({ a, b }) {
      const retries = () => a.services.store.stats().retries + b.services.store.stats().retries;
      const before = retries();
      const agents = Array.from({ length: 20 }, (_, i) => `x${i}`);
      const work: Promise<unknown>[] = [];
      for (const [i, agent] of agents.entries())
        for (let k = 0; k < 4; k++) {
          const d = (i + k) % 2 ? a : b;
          const target = k % 2 ? 'channel:c' : `dm:${agent}`;
          work.push(d.services.turns.enqueue(S, agent, target, `msg_${agent}_${k}`, 10));
          work.push(d.services.turns.claim(S, agent, d === a ? 'A' : 'B', 1));
        }
      await Promise.all(work);
      for (const agent of agents) {
        const turns = (
          await a.services.turns.list({ serverId: S, agentId: 'operator' }, { agent, limit: 100 })
        ).turns;
        assert.deepEqual(
          turns.flatMap((t) => t.messageIds).sort(),
          [0, 1, 2, 3].map((k) => `msg_${agent}_${k}`),
          agent,
        );
        assert.ok(turns.filter((t) => t.state === 'running').length <= 1, agent);
      }
      // Each agent's lock orders its own queue; the queues of others never conflict with it.
      assert.equal(retries() - before, 0);
    },
  },
];

for (const backend of BACKENDS) {
  for (const c of CASES) {
    test(`[${backend.name}] ${c.name}`, async (t) => {
      await c.run(await backend.pair(t));
    });
  }
}
