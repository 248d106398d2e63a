import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { AWKWARD, BACKENDS, type Case } from '../../devkit/store-contract.js';

/*
 * The store contract (devkit/store-contract.ts), saved delegated scopes:
 * the same two tables on SQLite and PostgreSQL, read by the other daemon,
 * a session saved once, and the bounds (256 sessions per agent, 64 tools
 * per scope) at the limit and one past it.
 */

const S = 'local';
const fp = (i: number) => i.toString(16).padStart(64, '0');
const tools = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ name: `client__t${i}`, fingerprint: fp(i) }));
const session = (id: string, n = 1, kind: 'scoped' | 'inspection' | 'legacy' = 'scoped') => ({
  sessionId: id,
  parentId: 'thr-P',
  taskId: `task-${id}`,
  kind,
  tools: kind === 'scoped' ? tools(n) : [],
});

const CASES: Case[] = [
  {
    name: 'delegated scopes: saved by one daemon, read by the other; a second save keeps the first; narrowing empties it',
    async run({ a, b, advance }) {
      const c = { serverId: S, agentId: 'x1' };
      const saved = await a.services.delegatedScopes.save(c, {
        ...session('thr-C', 2),
        taskId: AWKWARD[0]!,
      });
      assert.deepEqual(saved.tools, tools(2));
      advance(1);
      const again = await b.services.delegatedScopes.save(c, session('thr-C', 5));
      assert.deepEqual([again.taskId, again.tools.length], [AWKWARD[0], 2], 'the first save stays');
      assert.equal(
        await b.services.delegatedScopes.get({ serverId: S, agentId: 'x2' }, 'thr-C'),
        null,
      );
      await b.services.delegatedScopes.save({ serverId: S, agentId: 'x2' }, session('thr-C', 1));
      const both = await a.services.delegatedScopes.list('thr-C');
      assert.deepEqual(
        both.map((s) => [s.agentId, s.tools.length]),
        [
          ['x1', 2],
          ['x2', 1],
        ],
      );
      await a.services.delegatedScopes.narrow(c, 'thr-C');
      const narrowed = await b.services.delegatedScopes.get(c, 'thr-C');
      assert.deepEqual([narrowed?.kind, narrowed?.tools], ['inspection', []]);
      assert.equal((await b.services.delegatedScopes.list()).length, 2);
    },
  },
  {
    name: 'delegated scopes: 64 tools per scope and 256 sessions per agent are saved; one more is refused whole',
    async run({ a, b }) {
      const c = { serverId: S, agentId: 'x1' };
      const at = await a.services.delegatedScopes.save(c, session('s-0', 64));
      assert.equal(at.tools.length, 64);
      await assert.rejects(a.services.delegatedScopes.save(c, session('s-past', 65)), {
        name: 'DelegationLimitError',
        limit: 'toolsPerScope',
      });
      assert.equal(await b.services.delegatedScopes.get(c, 's-past'), null, 'nothing written');
      for (let i = 1; i < 256; i++)
        await (i % 2 ? b : a).services.delegatedScopes.save(c, session(`s-${i}`, 0, 'legacy'));
      assert.equal((await a.services.delegatedScopes.list()).length, 256);
      await assert.rejects(b.services.delegatedScopes.save(c, session('s-256')), {
        name: 'DelegationLimitError',
        limit: 'sessionsPerAgent',
      });
      // A session already saved is no new one: saving it again at the bound answers it.
      assert.equal((await b.services.delegatedScopes.save(c, session('s-0'))).tools.length, 64);
      // Another agent has bounds of its own.
      await a.services.delegatedScopes.save({ serverId: S, agentId: 'x2' }, session('s-256'));
      assert.equal((await a.services.delegatedScopes.list()).length, 257);
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
