import { describe, it, test } from 'node:test';
import { strict as assert } from 'node:assert';
import { LIMITS } from '../../catalog/limits.js';
import { call, closeHttp } from '../../devkit/http.js';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { AGENT, expensive, FLAVORS, ok, pagedOneByOne } from '../../devkit/limits.js';

/**
 * Scheduled messages, approvals, workflows and agent admin: the largest input
 * the schemas allow, written with the most expensive characters, is created,
 * read back whole, listed in a page of one and paged past, through the real
 * daemon. Each result is also checked against the worst case specs/limits.md
 * computes for it.
 */

test.after(() => closeHttp());

// The domains added beside tasks and messages, each at its limits, through the real daemon.
describe('Schedules, approvals, workflows and agent admin at their limits', {
  concurrency: true,
}, () => {
  for (const [flavor, unit] of Object.entries(FLAVORS)) {
    it(`schedules, approvals, workflows and agent admin at their limits, ${flavor} characters`, async (t) => {
      const d = await startDaemon();
      t.after(() => d.close());
      const rt = await startRuntime(d, { server: 's1', agent: AGENT });
      t.after(() => rt.close());
      const decider = await startRuntime(d, { server: 's1', agent: 'decider' });
      t.after(() => decider.close());

      const schedules: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          target: `dm:${'d'.repeat(128)}`,
          content: expensive(LIMITS.messageContent, unit, `${i}`),
          cron: '0 9 * * 1',
          timeZone: 'America/Argentina/ComodRivadavia',
          idempotencyKey: `${'s'.repeat(126)}-${i}`,
        };
        const { scheduledMessage } = ok(
          await call(rt, 'scheduled-message', 'create', input),
          'scheduled-message create',
        );
        assert.equal(scheduledMessage.content, input.content);
        assert.deepEqual(
          ok(
            await call(rt, 'scheduled-message', 'get', { id: scheduledMessage.id }),
            'scheduled-message get',
          ).scheduledMessage,
          scheduledMessage,
        );
        schedules.push(scheduledMessage);
      }
      await pagedOneByOne(
        rt,
        'scheduled-message',
        'scheduledMessages',
        {},
        schedules.map((x) => x.id).reverse(),
      );

      const approvals: any[] = [];
      for (const i of [0, 1]) {
        const input = {
          title: expensive(LIMITS.approvalTitle, unit, `${i}`),
          detail: expensive(LIMITS.approvalDetail, unit, `${i}`),
          idempotencyKey: `${'a'.repeat(126)}-${i}`,
        };
        const { approval } = ok(await call(rt, 'approval', 'request', input), 'approval request');
        assert.deepEqual([approval.title, approval.detail], [input.title, input.detail]);
        assert.deepEqual(
          ok(await call(rt, 'approval', 'get', { id: approval.id }), 'approval get').approval,
          approval,
        );
        approvals.push(approval);
      }
      const note = expensive(LIMITS.decisionNote, unit, 'n');
      const decided = ok(
        await call(decider, 'approval', 'decide', {
          id: approvals[0].id,
          decision: 'reject',
          note,
        }),
        'approval decide',
      ).approval;
      assert.equal(decided.note, note);
      const over = await call(decider, 'approval', 'decide', {
        id: approvals[1].id,
        decision: 'reject',
        note: `\u0001${note}`,
      });
      assert.equal(over.json.error.code, 'validation_failed');
      await pagedOneByOne(rt, 'approval', 'approvals', {}, approvals.map((x) => x.id).reverse());

      // The largest plan: every step at its limits; its run shows all steps with the longest notes.
      // A step name is trimmed, so one made of separators (white space to JavaScript) starts with a letter.
      const stepName = { chars: LIMITS.stepName.chars - 1, bytes: LIMITS.stepName.bytes - 1 };
      const steps = Array.from({ length: LIMITS.planSteps }, (_, i) => ({
        name: `n${expensive(stepName, unit, `s${i}`)}`,
        description: expensive(LIMITS.stepDescription, unit, `${i}`),
      }));
      const planInput = {
        op: 'create',
        name: expensive(LIMITS.planName, unit, 'p'),
        description: expensive(LIMITS.planDescription, unit, 'p'),
        steps,
      };
      const { plan } = ok(await call(rt, 'workflow', 'plan', planInput), 'workflow plan');
      assert.deepEqual([plan.name, plan.description], [planInput.name, planInput.description]);
      assert.deepEqual(
        ok(
          await call(rt, 'workflow', 'plan', { op: 'version', id: plan.id, version: 1 }),
          'workflow plan',
        ).version.steps,
        steps,
      );
      ok(await call(rt, 'workflow', 'plan', { op: 'publish', id: plan.id }), 'workflow plan');
      const started = ok(
        await call(rt, 'workflow', 'run', { op: 'start', planId: plan.id }),
        'workflow run',
      );
      for (const [i, st] of started.steps.entries()) {
        const done = ok(
          await call(rt, 'workflow', 'step', {
            op: 'complete',
            id: st.id,
            note: expensive(LIMITS.stepNote, unit, `${i}`),
          }),
          'workflow step',
        );
        assert.equal(done.step.note, expensive(LIMITS.stepNote, unit, `${i}`));
      }
      const shown = ok(
        await call(rt, 'workflow', 'run', { op: 'show', id: started.run.id }),
        'workflow run',
      );
      assert.equal(shown.run.status, 'completed');
      assert.equal(shown.steps.length, LIMITS.planSteps);
      let logs = 0;
      let cursor: string | undefined;
      for (;;) {
        const page = ok(
          await call(rt, 'workflow', 'run', {
            op: 'logs',
            id: started.run.id,
            limit: 1,
            ...(cursor ? { cursor } : {}),
          }),
          'workflow run',
        );
        logs += page.logs.length;
        if (!page.hasMore) break;
        cursor = page.nextCursor;
      }
      assert.ok(logs >= 2 * LIMITS.planSteps, `${logs} log entries`);

      // Agent admin at the profile limits.
      // Through Exec a profile name or URL takes only the code points that always fit its bytes (6 a control character); profile.json may hold longer ones.
      const asInput = (l: { chars: number; bytes: number }) => ({
        chars: Math.min(l.chars, Math.floor(l.bytes / 6)),
        bytes: l.bytes,
      });
      const name = (s: string) => expensive(asInput(LIMITS.profileName), unit, s);
      const id = 'n'.repeat(LIMITS.agentId.chars);
      const baseUrl = `https://example.com/${'p'.repeat(asInput(LIMITS.profileUrl).chars - 'https://example.com/'.length)}`;
      const created = ok(
        await call(rt, 'agent', 'create', {
          id,
          displayName: name('d'),
          runtime: 'claude',
          model: name('m'),
          baseUrl,
          apiKeyEnv: 'K'.repeat(128),
        }),
        'agent create',
      );
      assert.equal(created.agent.displayName, name('d'));
      const updated = ok(
        await call(rt, 'agent', 'update', {
          id,
          displayName: name('e'),
          expectedRevision: created.revision,
        }),
        'agent update',
      );
      assert.equal(updated.agent.displayName, name('e'));
      assert.deepEqual(
        ok(await call(rt, 'agent', 'get', { id }), 'agent get').agent,
        updated.agent,
      );
      ok(await call(rt, 'workspace', 'get', {}), 'workspace get');
      ok(await call(rt, 'profile', 'get', {}), 'profile get');
      assert.equal(ok(await call(rt, 'agent', 'delete', { id }), 'agent delete').deleted.id, id);
    });
  }
});
