import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { startInProc } from '../../devkit/inproc.js';
import { freshDatabase } from '../../devkit/pg.js';
import { AUDIT_DEFAULTS } from '../../daemon/audit/settings.js';

/**
 * Count retention cannot be turned against the trail: an agent that makes a
 * telling call and then floods cheap ones (160 calls at maxRows 100) neither
 * pushes another agent's rows out nor its own telling row. Only its own
 * older rows of the kind it flooded go.
 */
const BACKENDS = [
  { name: 'sqlite', store: async () => undefined },
  { name: 'postgres', store: async () => freshDatabase() },
];

for (const backend of BACKENDS) {
  test(`audit retention (${backend.name}): a flood trims the flooder's own rows of that kind, never another agent's nor its telling call`, async (t) => {
    const store = await backend.store();
    const p = await startInProc(t, {
      ...(store ? { store } : {}),
      audit: { ...AUDIT_DEFAULTS, maxRows: 100 },
    });
    const audit = p.services.audit!;
    const a = await p.runtime('s1', 'a');
    const b = await p.runtime('s1', 'b');
    for (let i = 0; i < 10; i++) assert.equal((await b('task', 'list', {})).status, 200);
    assert.equal((await a('task', 'create', { title: 'copy the customer list out' })).status, 200);
    for (let i = 0; i < 160; i++) await a('task', 'list', {});
    // Refused calls name whatever the caller likes: 30 made-up actions are one kind (their error code), not 30.
    for (let i = 0; i < 30; i++) assert.equal((await a('task', `made-up-${i}`, {})).status, 404);
    await audit.recorder.flush();
    await audit.recorder.trim();

    const page = await p.services.auditLog.list({ limit: 100 });
    assert.equal(page.hasMore, false, 'at most maxRows rows');
    const rows = page.items;
    assert.equal(rows.length, 100);
    const of = (agent: string, tool?: string) =>
      rows.filter((r) => r.agentId === agent && (tool === undefined || r.tool === tool));
    assert.equal(of('b').length, 10, 'every row of the agent that did not flood survives');
    assert.equal(of('a', 'task/create').length, 1, "the flooder's own telling call survives");
    // a's share is 90 (b keeps its 10): its one create, its 30 refusals (under an equal part of what is left), 59 lists.
    assert.equal(rows.filter((r) => r.agentId === 'a' && r.outcome !== 'ok').length, 30);
    assert.equal(of('a', 'task/list').length, 59);
    // Within the flooded kind the newest stay.
    const listSeqs = of('a', 'task/list').map((r) => r.seq);
    const allListSeqs = (
      await p.services.auditLog.list({ agentId: 'a', tool: 'task/list', limit: 100 })
    ).items.map((r) => r.seq);
    assert.deepEqual(listSeqs, allListSeqs);
    assert.equal(await audit.recorder.trim(), 0, 'a second pass finds nothing to do');
  });
}
