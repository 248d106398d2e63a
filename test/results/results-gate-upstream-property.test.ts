import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { KnowledgeUpstream } from '../../daemon/knowledge/kb-upstream.js';
import { forwardToUpstream } from '../../daemon/extensions/forward.js';
import type { PinnedExtension } from '../../daemon/extensions/forward.js';
import { createDiag } from '../../daemon/lifecycle/diag.js';
import { SecretSet } from '../../daemon/masking/secrets.js';
import { fixedSource } from '../../daemon/masking/sources.js';
import type { BoundaryPolicy } from '../../daemon/results/boundary.js';
import {
  BATCHES,
  CASES,
  assertNoLeak,
  outputArb,
  outputText,
  batchGate,
  frameOf,
  names,
  settle,
  tempDir,
} from '../../devkit/gate-property.js';

/**
 * The result gate's masking as a property over what comes from outside:
 * extension and knowledge upstreams (answers and error bodies), and every
 * line of the daemon's log.
 */

/** A local upstream answering each request with the next planned (status, body). */
async function plannedUpstream(
  t: import('node:test').TestContext,
): Promise<{ url: string; plan(status: number, body: string): void }> {
  let next = { status: 200, body: '{}' };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(next.status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(next.body),
      });
      res.end(next.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plan: (status, body) => (next = { status, body }),
  };
}

test(`property: extension and knowledge upstreams — answers and error bodies reach the agent masked (${CASES} for each upstream)`, async (t) => {
  const up = await plannedUpstream(t);
  const ext = {
    name: 'demo',
    upstream: up.url,
    digest: 'd',
    catalogVersion: '1',
  } as unknown as PinnedExtension;
  const policy: BoundaryPolicy = {
    domain: 'demo',
    action: 'get',
    risk: 'read',
    result: { hint: 'smaller', next: { action: 'demo get', input: {} } },
    receipt: null as never,
  };
  const status = fc.constantFrom(200, 200, 400, 404, 422, 500, 503);
  // Every case goes to each upstream: CASES answers or error bodies for each.
  const caseArb = fc.record({ o: outputArb, statuses: fc.tuple(status, status, status) });
  const spill = tempDir(t, 'agentteam-prop-upstream-');
  await fc.assert(
    fc.asyncProperty(
      fc.array(caseArb, { minLength: BATCHES.size, maxLength: BATCHES.size }),
      async (cases) => {
        const gate = batchGate(
          cases.map((c) => c.o.secret),
          spill,
        );
        const kb = new KnowledgeUpstream({ url: up.url, timeoutMs: 5000 }, gate);
        const turn = { targetKey: 'general', targetType: 'channel', messageId: 'msg_1' } as never;
        const principal = { serverId: 's', agentId: 'a' } as never;
        for (const [n, which] of (['extension', 'kb_search', 'kb_fetch'] as const).entries())
          for (const base of cases) {
            const c = { ...base, which, status: base.statuses[n]! };
            const text = outputText(c.o);
            let frame: string;
            if (c.which === 'extension') {
              up.plan(
                c.status,
                c.status === 200
                  ? JSON.stringify({ item: { title: text, tags: [text], [c.o.secret]: 1 } })
                  : JSON.stringify({ error: { message: text, detail: text } }),
              );
              const got = await settle(
                forwardToUpstream(
                  ext,
                  'get',
                  {},
                  new AbortController().signal,
                  () => ({ ok: true }) as never,
                ),
              );
              if (got.ok) {
                const out = gate.json(policy, {}, got.value);
                frame = out.ok ? out.body : JSON.stringify(gate.error(out.error));
              } else frame = JSON.stringify(gate.error(got.error));
            } else {
              // The upstream sends each secret whole (one that cuts a secret itself sends a piece no one can recognize).
              const short = outputText({ ...c.o, size: Math.min(c.o.size, 100) });
              const answer =
                c.which === 'kb_search'
                  ? {
                      hits: [{ docId: 'd1', title: 'Upstream doc', snippet: short, score: 1 }],
                      hasMore: false,
                    }
                  : {
                      docId: 'd1',
                      title: 'Upstream doc',
                      text: outputText({ ...c.o, size: Math.min(c.o.size, 6000) }),
                      lineStart: 1,
                      lineEnd: 1,
                      hasMore: false,
                    };
              // Error messages are quoted clipped: the secret is placed where a cut before masking would split it.
              up.plan(
                c.status,
                c.status === 200
                  ? JSON.stringify(answer)
                  : JSON.stringify({
                      error: { message: `${'m'.repeat(c.o.seed % 320)}${c.o.secret}${text}` },
                    }),
              );
              const call: Promise<unknown> =
                c.which === 'kb_search'
                  ? kb.search(
                      principal,
                      turn,
                      { query: 'q', limit: 5 },
                      new AbortController().signal,
                    )
                  : kb.fetch(principal, turn, { docId: 'd1' }, new AbortController().signal);
              const got = await settle(call);
              frame = got.ok
                ? frameOf(gate, c.which, {}, got.value)
                : JSON.stringify(gate.error(got.error));
            }
            assertNoLeak(c.o.secret, frame, `${c.which} upstream (HTTP ${c.status})`);
          }
      },
    ),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});

test(`property: the log — every diagnostic line is masked by the log's writer (${CASES} lines)`, () => {
  const caseArb = fc.record({ o: outputArb, key: fc.boolean(), nested: fc.boolean() });
  fc.assert(
    fc.property(
      fc.array(caseArb, { minLength: BATCHES.size, maxLength: BATCHES.size }),
      (cases) => {
        const secrets = new SecretSet();
        cases.forEach((c, i) => {
          secrets.add(fixedSource(names(cases.length)[i]!, c.o.secret));
        });
        const lines: string[] = [];
        const diag = createDiag({ now: () => 0 } as never, secrets, (l) => lines.push(l));
        cases.forEach((c, i) => {
          const text = outputText(c.o);
          const detail = c.nested
            ? { error: { message: text, list: [text] } }
            : c.key
              ? { [c.o.secret]: 'v', path: text }
              : { path: text, error: String(new Error(text)) };
          // Distinct event names: the per-kind rate limit would otherwise drop most lines.
          diag(`event_${i}`, detail);
          assertNoLeak(c.o.secret, lines[lines.length - 1]!, 'log line');
        });
        assert.equal(lines.length, cases.length);
      },
    ),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});
