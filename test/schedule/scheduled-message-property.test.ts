import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { startInProc } from '../../devkit/inproc.js';
import { countOccurrences } from '../../lib/cron.js';
import {
  scheduledMessageCancel,
  scheduledMessageCreate,
  scheduledMessageRuns,
} from '../../catalog/domains/scheduled-message.js';

const MIN = 60_000;

// Whatever the pattern of uptime and downtime, every occurrence of a rule is
// accounted for exactly once: delivered on time, or counted in the `missed`
// of the one late run of its window. Nothing is lost and nothing is doubled.
test('property: runs account for every cron occurrence exactly once across random downtime', async (t) => {
  // One store for all cases (a fresh one each costs more than the case): each case has its own schedule and target.
  const p = await startInProc(t);
  const server = p.services.server({ serverId: 's1', agentId: 'a1' });
  let n = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ ms: fc.integer({ min: 1, max: 10 * MIN }), down: fc.boolean() }), {
        minLength: 1,
        maxLength: 10,
      }),
      fc.constantFrom('* * * * *', '*/3 * * * *', '*/45 * * * * *'),
      async (steps, cron) => {
        const target = `channel:p${++n}`;
        await p.services.scheduler.start();
        const created = p.clock.now();
        const s = (
          await server.call(scheduledMessageCreate, { target, content: 'x', cron, timeZone: 'UTC' })
        ).scheduledMessage;
        let up = true;
        for (const step of steps) {
          if (step.down && up) await p.services.scheduler.stop();
          if (!step.down && !up) await p.services.scheduler.start();
          up = !step.down;
          await p.advance(step.ms);
        }
        if (!up) await p.services.scheduler.start();
        const runs = [];
        let cursor: string | undefined;
        do {
          const page = await server.call(scheduledMessageRuns, {
            id: s.id,
            limit: 100,
            ...(cursor ? { cursor } : {}),
          });
          runs.push(...page.runs);
          cursor = page.nextCursor;
        } while (cursor);
        const first = Date.parse(s.nextRunAt!);
        const expected =
          first <= p.clock.now()
            ? countOccurrences({ cron, timeZone: 'UTC' }, first, p.clock.now())
            : 0;
        assert.equal(
          runs.reduce((n, r) => n + r.missed, 0),
          expected,
        );
        assert.equal(new Set(runs.map((r) => r.dueAt)).size, runs.length, 'one run per due time');
        assert.ok(
          runs.every((r) => r.late === r.missed > 1 || r.late),
          'a run standing for several occurrences is late',
        );
        const messages = await p.services.messages.history({ serverId: 's1', target, limit: 50 });
        assert.equal(messages.messages.length, Math.min(runs.length, 50));
        assert.ok(created < first);
        await server.call(scheduledMessageCancel, { id: s.id });
        await p.services.scheduler.stop();
      },
    ),
    { numRuns: 15 },
  );
});
