import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { systemClock } from '../../lib/clock.js';
import { MemoryIndexes } from '../../daemon/knowledge/memory.js';
import { EmbeddedKnowledge } from '../../daemon/knowledge/kb-embedded.js';
import {
  BATCHES,
  CASES,
  assertNoLeak,
  plantedArb,
  batchGate,
  frameOf,
  settle,
  tempDir,
  withWord,
} from '../../devkit/gate-property.js';

/**
 * The result gate's promise as a property, producer by producer, in-process
 * against the functions that make each output: random secrets (8-200 bytes,
 * ASCII, multibyte, characters JSON escapes) at random offsets; whatever an
 * agent, an app, the event stream, a spill file or the log receives holds no
 * run of 8 or more bytes of a secret, raw or JSON-escaped. Each producer runs
 * CASES cases: BATCHES.runs runs of a batch of 100 secrets configured at once
 * (300 in `npm test`, 2,000 at soak scale: devkit/scale.ts). The same
 * promise end to end through a real daemon: results-gate-e2e.test.ts.
 */

test(`property: notes — memory_search snippets never show 8+ bytes of a secret (${CASES} notes, queries from the secret)`, async (t) => {
  const root = tempDir(t, 'agentteam-prop-memory-');
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(plantedArb({ long: false }), { minLength: BATCHES.size, maxLength: BATCHES.size }),
      async (cases) => {
        const home = join(root, String(run++));
        const folder = join(home, 'memory', 'agent');
        mkdirSync(folder, { recursive: true });
        cases.forEach((c, i) => {
          writeFileSync(join(folder, `n${i}.md`), withWord(c, i));
        });
        const gate = batchGate(
          cases.map((c) => c.secret),
          join(home, 'spill'),
        );
        const memory = new MemoryIndexes({ home, clock: systemClock, gate, buildWaitMs: 60_000 });
        try {
          for (let i = 0; i < cases.length; i++) {
            for (const query of [`cw${i}q`, cases[i]!.query]) {
              const got = await settle(memory.search('agent', { query, limit: 20 }));
              const frame = got.ok
                ? frameOf(gate, 'memory_search', { query }, got.value)
                : JSON.stringify(gate.error(got.error));
              const seen = new Set([
                i,
                ...[...frame.matchAll(/n(\d+)\.md/g)].map((m) => Number(m[1])),
              ]);
              for (const k of seen)
                assertNoLeak(
                  cases[k]!.secret,
                  frame,
                  `memory_search ${JSON.stringify(query)} (note ${k})`,
                );
              if (query === `cw${i}q`)
                assert.ok(
                  got.ok && got.value.hits.some((h) => h.path === `n${i}.md`),
                  'the note is found by its code word',
                );
            }
          }
        } finally {
          memory.close();
          rmSync(home, { recursive: true, force: true });
        }
      },
    ),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});

test(`property: kb documents — kb_search snippets and kb_fetch pages (alone and reassembled) never show 8+ bytes of a secret (${CASES} documents, lines far longer than a page)`, async (t) => {
  const root = tempDir(t, 'agentteam-prop-kb-');
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(plantedArb({ long: true, maxLines: 12 }), {
        minLength: BATCHES.size,
        maxLength: BATCHES.size,
      }),
      async (cases) => {
        const home = join(root, String(run++));
        mkdirSync(join(home, 'kb'), { recursive: true });
        cases.forEach((c, i) => {
          writeFileSync(join(home, 'kb', `d${i}.md`), withWord(c, i));
        });
        const gate = batchGate(
          cases.map((c) => c.secret),
          join(home, 'spill'),
        );
        const kb = new EmbeddedKnowledge({ home, clock: systemClock, gate });
        try {
          for (let i = 0; i < cases.length; i++) {
            const { secret } = cases[i]!;
            // kb_fetch: every page, then all pages joined (an agent reassembling the document).
            let cursor: string | undefined;
            let whole = '';
            for (let page = 0; page < 1000; page++) {
              const out = await kb.fetch({ docId: `d${i}.md`, ...(cursor ? { cursor } : {}) });
              assertNoLeak(
                secret,
                frameOf(gate, 'kb_fetch', { docId: `d${i}.md` }, out),
                `kb_fetch d${i}.md page ${page}`,
              );
              whole += out.text;
              if (!out.hasMore) break;
              cursor = out.nextCursor;
            }
            assertNoLeak(secret, whole, `kb_fetch d${i}.md reassembled`);
            for (const query of [`cw${i}q`, cases[i]!.query]) {
              const got = await settle(kb.search({ query, limit: 20 }));
              const frame = got.ok
                ? frameOf(gate, 'kb_search', { query }, got.value)
                : JSON.stringify(gate.error(got.error));
              const seen = new Set([
                i,
                ...[...frame.matchAll(/d(\d+)\.md/g)].map((m) => Number(m[1])),
              ]);
              for (const k of seen)
                assertNoLeak(
                  cases[k]!.secret,
                  frame,
                  `kb_search ${JSON.stringify(query)} (document ${k})`,
                );
            }
          }
        } finally {
          kb.close();
          rmSync(home, { recursive: true, force: true });
        }
      },
    ),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});
