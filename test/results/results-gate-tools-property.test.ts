import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { systemClock } from '../../lib/clock.js';
import type { CommandTransport } from '../../catalog/tool-declaration.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import { commandAnswer } from '../../daemon/tools/declared-tool.js';
import { ToolActivity } from '../../daemon/tools/activity.js';
import { answerOutcome, clientResultFrame } from '../../daemon/clienttools/result-exit.js';
import { RESULT_BUDGET_BYTES } from '../../catalog/limits.js';
import {
  BATCHES,
  CASES,
  assertNoLeak,
  outputArb,
  outputText,
  batchGate,
  checkSpills,
  tempDir,
} from '../../devkit/gate-property.js';

/**
 * The result gate's masking as a property over what tools hand back:
 * declared command tools (said, shown, ask, the quoted stderr tail) and
 * client tools (content, structured result, error message). Secrets and
 * their planting come from devkit/gate-property.ts.
 */

test(`property: declared tools — said, shown, ask and the quoted stderr tail never carry 8+ bytes of a secret (${CASES} commands)`, async (t) => {
  const root = tempDir(t, 'agentteam-prop-tools-');
  let run = 0;
  const caseArb = fc.record({
    out: outputArb,
    err: outputArb,
    mode: fc.constantFrom('plain', 'json', 'fail', 'timeout'),
    outputBytes: fc.integer({ min: 256, max: 8192 }),
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(caseArb, { minLength: BATCHES.size / 2, maxLength: BATCHES.size / 2 }),
      async (cases) => {
        const spill = join(root, String(run++));
        const secrets = cases.flatMap((c) => [c.out.secret, c.err.secret]);
        const gate = batchGate(secrets, spill);
        const activity = new ToolActivity(systemClock);
        const events: string[] = [];
        activity.connect((type, e) => events.push(JSON.stringify({ type, e })));
        for (const c of cases) {
          const transport: CommandTransport = {
            type: 'command',
            argv: ['x'],
            env: [],
            timeoutMs: 1000,
            outputBytes: c.outputBytes,
            exitCodes: [0],
          };
          const said = outputText(c.out);
          const stdout =
            c.mode === 'json'
              ? JSON.stringify({ said, shown: outputText(c.err), ask: `${c.out.secret}?` })
              : said;
          const stderr = outputText(c.err);
          const outcome =
            c.mode === 'timeout'
              ? { kind: 'timeout' as const, stdout, stderr }
              : {
                  kind: 'exit' as const,
                  code: c.mode === 'fail' ? 1 : 0,
                  signal: null,
                  stdout,
                  stderr,
                };
          let frame: string;
          try {
            frame = commandAnswer(
              'tool',
              outcome,
              transport,
              { serverId: 's', agentId: 'a' },
              { gate, activity },
            );
          } catch (err) {
            assert.ok(err instanceof ExecError);
            frame = JSON.stringify(gate.error(err));
          }
          for (const s of [c.out.secret, c.err.secret])
            assertNoLeak(s, frame, `declared tool (${c.mode}) answer`);
        }
        for (const e of events) for (const s of secrets) assertNoLeak(s, e, 'tool activity event');
        for (const e of [...activity.log(10_000), ...activity.pending()])
          for (const s of secrets) assertNoLeak(s, JSON.stringify(e), 'tool activity log');
        checkSpills(spill, secrets);
        rmSync(spill, { recursive: true, force: true });
      },
    ),
    { numRuns: BATCHES.runs * 2, endOnFailure: true, includeErrorInReport: true },
  );
});

test(`property: client tools — an app's content, structured result and error message reach the agent masked (${CASES} answers)`, async (t) => {
  const root = tempDir(t, 'agentteam-prop-client-');
  let run = 0;
  const caseArb = fc.record({
    o: outputArb,
    big: fc.boolean(),
    kind: fc.constantFrom('text', 'structured', 'error', 'image'),
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(caseArb, { minLength: BATCHES.size, maxLength: BATCHES.size }),
      async (cases) => {
        const spill = join(root, String(run++));
        const gate = batchGate(
          cases.map((c) => c.o.secret),
          spill,
        );
        for (const c of cases) {
          const text = outputText(c.o);
          // A result over the budget keeps head and tail of its text and is spilled; the secret may sit at the cut.
          const long = c.big
            ? `${'x '.repeat(RESULT_BUDGET_BYTES / 4)}${text}${' y'.repeat(RESULT_BUDGET_BYTES / 4)}`
            : text;
          const answer =
            c.kind === 'error'
              ? { code: 'upstream_error', message: text }
              : c.kind === 'structured'
                ? {
                    content: [{ type: 'text', text: long }],
                    structured: { value: { [c.o.secret]: text, list: [text, { v: text }] } },
                    isError: false,
                  }
                : c.kind === 'image'
                  ? {
                      content: [
                        {
                          type: 'image',
                          data: 'aGk=',
                          mimeType: 'image/png',
                          _meta: { note: text },
                        },
                        { type: 'text', text: long },
                      ],
                      isError: false,
                    }
                  : { content: [{ type: 'text', text: long }], isError: false };
          let frame: string;
          try {
            frame = clientResultFrame(answerOutcome(gate, answer), {} as never, gate);
          } catch (err) {
            frame = JSON.stringify(gate.error(err));
          }
          assertNoLeak(
            c.o.secret,
            frame,
            `client tool ${c.kind}${c.big ? ' (over the limit)' : ''}`,
          );
        }
        checkSpills(
          spill,
          cases.map((c) => c.o.secret),
        );
        rmSync(spill, { recursive: true, force: true });
      },
    ),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});
