import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { systemClock } from '../lib/clock.js';
import { MCP_TOOLS } from '../catalog/mcp-tools.js';
import type { CommandTransport } from '../catalog/tool-declaration.js';
import { ExecError } from '../daemon/errors.js';
import { sharedBoundary } from '../daemon/mcp/boundary.js';
import { MemoryIndexes } from '../daemon/knowledge/memory.js';
import { EmbeddedKnowledge } from '../daemon/knowledge/kb-embedded.js';
import { KnowledgeUpstream } from '../daemon/knowledge/kb-upstream.js';
import { commandAnswer } from '../daemon/tools/declared-tool.js';
import { ToolActivity } from '../daemon/tools/activity.js';
import { clientResultFrame, CLIENT_TEXT_LIMIT_BYTES } from '../daemon/clienttools/result-exit.js';
import { forwardToUpstream } from '../daemon/extensions/forward.js';
import type { PinnedExtension } from '../daemon/extensions/catalog.js';
import { createDiag } from '../daemon/lifecycle/diag.js';
import { SecretSet } from '../daemon/results/secrets.js';
import { fixedSource } from '../daemon/results/sources.js';
import type { ResultGate } from '../daemon/results/gate.js';
import type { BoundaryPolicy } from '../daemon/exec/result-boundary.js';
import { gateWith } from './harness/gate.js';
import { BATCHES, WORDS, assertNoLeak, plantedArb, secretArb, type Planted } from './harness/gate-property.js';

/**
 * The result gate's promise as a property, producer by producer, in-process
 * against the functions that make each output: random secrets (8-200 bytes,
 * ASCII, multibyte, characters JSON escapes) at random offsets; whatever an
 * agent, an app, the event stream, a spill file or the log receives holds no
 * run of 8 or more bytes of a secret, raw or JSON-escaped. Each producer runs
 * 2,000 cases: 20 runs of a batch of 100 secrets configured at once. The same
 * promise end to end through a real daemon: results-gate-e2e.test.ts.
 */

const tool = (name: string) => MCP_TOOLS.find((x) => x.name === name)!;
const names = (n: number) => Array.from({ length: n }, (_, i) => `GATE_S${i}`);

function batchGate(secrets: readonly string[], spill: string): ResultGate {
  return gateWith(Object.fromEntries(secrets.map((s, i) => [`GATE_S${i}`, s])), spill);
}

function tempDir(t: import('node:test').TestContext, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The MCP frame of a tool's answer, as the shared boundary makes it (or the error it becomes). */
function frameOf(gate: ResultGate, name: string, input: Record<string, unknown>, data: unknown): string {
  try {
    return sharedBoundary(gate)(tool(name), input, data);
  } catch (err) {
    return JSON.stringify(gate.error(err));
  }
}

async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Every spill file written so far, checked against every secret of the batch. */
function checkSpills(dir: string, secrets: readonly string[]): void {
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return;
  }
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const s of secrets) assertNoLeak(s, text, `spill file ${f}`);
  }
}

const withWord = (p: Planted, i: number) => p.text.replace(p.secret, () => ` cw${i}q ${p.secret} cw${i}q `);

test('property: notes — memory_search snippets never show 8+ bytes of a secret (2,000 notes, queries from the secret)', async (t) => {
  const root = tempDir(t, 'agentteam-prop-memory-');
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(plantedArb({ long: false }), { minLength: BATCHES.size, maxLength: BATCHES.size }), async (cases) => {
      const home = join(root, String(run++));
      const folder = join(home, 'memory', 'agent');
      mkdirSync(folder, { recursive: true });
      cases.forEach((c, i) => writeFileSync(join(folder, `n${i}.md`), withWord(c, i)));
      const gate = batchGate(cases.map((c) => c.secret), join(home, 'spill'));
      const memory = new MemoryIndexes({ home, clock: systemClock, gate, buildWaitMs: 60_000 });
      try {
        for (let i = 0; i < cases.length; i++) {
          for (const query of [`cw${i}q`, cases[i]!.query]) {
            const got = await settle(memory.search('agent', { query, limit: 20 }));
            const frame = got.ok ? frameOf(gate, 'memory_search', { query }, got.value) : JSON.stringify(gate.error(got.error));
            const seen = new Set([i, ...[...frame.matchAll(/n(\d+)\.md/g)].map((m) => Number(m[1]))]);
            for (const k of seen) assertNoLeak(cases[k]!.secret, frame, `memory_search ${JSON.stringify(query)} (note ${k})`);
            if (query === `cw${i}q`) assert.ok(got.ok && got.value.hits.some((h) => h.path === `n${i}.md`), 'the note is found by its code word');
          }
        }
      } finally {
        memory.close();
        rmSync(home, { recursive: true, force: true });
      }
    }),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});

test('property: kb documents — kb_search snippets and kb_fetch pages (alone and reassembled) never show 8+ bytes of a secret (2,000 documents, lines far longer than a page)', async (t) => {
  const root = tempDir(t, 'agentteam-prop-kb-');
  let run = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(plantedArb({ long: true, maxLines: 12 }), { minLength: BATCHES.size, maxLength: BATCHES.size }), async (cases) => {
      const home = join(root, String(run++));
      mkdirSync(join(home, 'kb'), { recursive: true });
      cases.forEach((c, i) => writeFileSync(join(home, 'kb', `d${i}.md`), withWord(c, i)));
      const gate = batchGate(cases.map((c) => c.secret), join(home, 'spill'));
      const kb = new EmbeddedKnowledge({ home, clock: systemClock, gate });
      try {
        for (let i = 0; i < cases.length; i++) {
          const { secret } = cases[i]!;
          // kb_fetch: every page, then all pages joined (an agent reassembling the document).
          let cursor: string | undefined;
          let whole = '';
          for (let page = 0; page < 1000; page++) {
            const out = await kb.fetch({ docId: `d${i}.md`, ...(cursor ? { cursor } : {}) });
            assertNoLeak(secret, frameOf(gate, 'kb_fetch', { docId: `d${i}.md` }, out), `kb_fetch d${i}.md page ${page}`);
            whole += out.text;
            if (!out.hasMore) break;
            cursor = out.nextCursor;
          }
          assertNoLeak(secret, whole, `kb_fetch d${i}.md reassembled`);
          for (const query of [`cw${i}q`, cases[i]!.query]) {
            const got = await settle(kb.search({ query, limit: 20 }));
            const frame = got.ok ? frameOf(gate, 'kb_search', { query }, got.value) : JSON.stringify(gate.error(got.error));
            const seen = new Set([i, ...[...frame.matchAll(/d(\d+)\.md/g)].map((m) => Number(m[1]))]);
            for (const k of seen) assertNoLeak(cases[k]!.secret, frame, `kb_search ${JSON.stringify(query)} (document ${k})`);
          }
        }
      } finally {
        kb.close();
        rmSync(home, { recursive: true, force: true });
      }
    }),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});

/** Filler with the secret at a random offset, `size` bytes about (cheap to make large). */
const outputArb = fc.record({ secret: secretArb, size: fc.oneof(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 1_000, max: 12_000 })), at: fc.double({ min: 0, max: 1, noNaN: true }), seed: fc.nat() });
function outputText(o: { secret: string; size: number; at: number; seed: number }): string {
  const filler = Array.from({ length: Math.ceil(o.size / 6) + 1 }, (_, k) => WORDS[(o.seed + k * 7) % WORDS.length]).join(' ').slice(0, o.size);
  const cut = Math.floor(filler.length * o.at);
  return `${filler.slice(0, cut)}${o.secret}${filler.slice(cut)}`;
}

test('property: declared tools — said, shown, ask and the quoted stderr tail never carry 8+ bytes of a secret (2,000 commands)', async (t) => {
  const root = tempDir(t, 'agentteam-prop-tools-');
  let run = 0;
  const caseArb = fc.record({
    out: outputArb,
    err: outputArb,
    mode: fc.constantFrom('plain', 'json', 'fail', 'timeout'),
    outputBytes: fc.integer({ min: 256, max: 8192 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(caseArb, { minLength: BATCHES.size / 2, maxLength: BATCHES.size / 2 }), async (cases) => {
      const spill = join(root, String(run++));
      const secrets = cases.flatMap((c) => [c.out.secret, c.err.secret]);
      const gate = batchGate(secrets, spill);
      const activity = new ToolActivity(systemClock);
      const events: string[] = [];
      activity.connect((type, e) => events.push(JSON.stringify({ type, e })));
      for (const c of cases) {
        const transport: CommandTransport = { type: 'command', argv: ['x'], env: [], timeoutMs: 1000, outputBytes: c.outputBytes, exitCodes: [0] };
        const said = outputText(c.out);
        const stdout = c.mode === 'json' ? JSON.stringify({ said, shown: outputText(c.err), ask: `${c.out.secret}?` }) : said;
        const stderr = outputText(c.err);
        const outcome = c.mode === 'timeout' ? { kind: 'timeout' as const, stdout, stderr } : { kind: 'exit' as const, code: c.mode === 'fail' ? 1 : 0, signal: null, stdout, stderr };
        let frame: string;
        try {
          frame = commandAnswer('tool', outcome, transport, { serverId: 's', agentId: 'a' }, { gate, activity });
        } catch (err) {
          assert.ok(err instanceof ExecError);
          frame = JSON.stringify(gate.error(err));
        }
        for (const s of [c.out.secret, c.err.secret]) assertNoLeak(s, frame, `declared tool (${c.mode}) answer`);
      }
      for (const e of events) for (const s of secrets) assertNoLeak(s, e, 'tool activity event');
      for (const e of [...activity.log(10_000), ...activity.pending()]) for (const s of secrets) assertNoLeak(s, JSON.stringify(e), 'tool activity log');
      checkSpills(spill, secrets);
      rmSync(spill, { recursive: true, force: true });
    }),
    { numRuns: BATCHES.runs * 2, endOnFailure: true, includeErrorInReport: true },
  );
});

test('property: client tools — an app\'s content, structured result and error message reach the agent masked (2,000 answers)', async (t) => {
  const root = tempDir(t, 'agentteam-prop-client-');
  let run = 0;
  const caseArb = fc.record({ o: outputArb, big: fc.boolean(), kind: fc.constantFrom('text', 'structured', 'error', 'image') });
  await fc.assert(
    fc.asyncProperty(fc.array(caseArb, { minLength: BATCHES.size, maxLength: BATCHES.size }), async (cases) => {
      const spill = join(root, String(run++));
      const gate = batchGate(cases.map((c) => c.o.secret), spill);
      for (const c of cases) {
        const text = outputText(c.o);
        // A text block over the client limit keeps head and tail and is spilled; the secret may sit at the cut.
        const long = c.big ? `${'x '.repeat(CLIENT_TEXT_LIMIT_BYTES / 4)}${text}${' y'.repeat(CLIENT_TEXT_LIMIT_BYTES / 4)}` : text;
        const outcome =
          c.kind === 'error' ? { ok: false as const, code: 'upstream_error', message: text }
          : c.kind === 'structured' ? { ok: true as const, content: [{ type: 'text', text: long }], structured: { value: { [c.o.secret]: text, list: [text, { v: text }] } } }
          : c.kind === 'image' ? { ok: true as const, content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png', _meta: { note: text } }, { type: 'text', text: long }] }
          : { ok: true as const, content: [{ type: 'text', text: long }] };
        let frame: string;
        try {
          frame = clientResultFrame(outcome, {} as never, gate);
        } catch (err) {
          frame = JSON.stringify(gate.error(err));
        }
        assertNoLeak(c.o.secret, frame, `client tool ${c.kind}${c.big ? ' (over the limit)' : ''}`);
      }
      checkSpills(spill, cases.map((c) => c.o.secret));
      rmSync(spill, { recursive: true, force: true });
    }),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});

/** A local upstream answering each request with the next planned (status, body). */
async function plannedUpstream(t: import('node:test').TestContext): Promise<{ url: string; plan(status: number, body: string): void }> {
  let next = { status: 200, body: '{}' };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(next.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(next.body) });
      res.end(next.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, plan: (status, body) => (next = { status, body }) };
}

test('property: extension and knowledge upstreams — answers and error bodies reach the agent masked (2,000 for each upstream)', async (t) => {
  const up = await plannedUpstream(t);
  const ext = { name: 'demo', upstream: up.url, digest: 'd', catalogVersion: '1' } as unknown as PinnedExtension;
  const policy: BoundaryPolicy = { domain: 'demo', action: 'get', risk: 'read', result: { hint: 'smaller', next: { action: 'demo get', input: {} } }, receipt: null as never };
  const status = fc.constantFrom(200, 200, 400, 404, 422, 500, 503);
  // Every case goes to each upstream: 2,000 answers or error bodies for each.
  const caseArb = fc.record({ o: outputArb, statuses: fc.tuple(status, status, status) });
  const spill = tempDir(t, 'agentteam-prop-upstream-');
  await fc.assert(
    fc.asyncProperty(fc.array(caseArb, { minLength: BATCHES.size, maxLength: BATCHES.size }), async (cases) => {
      const gate = batchGate(cases.map((c) => c.o.secret), spill);
      const kb = new KnowledgeUpstream({ url: up.url, timeoutMs: 5000 }, gate);
      const turn = { targetKey: 'general', targetType: 'channel', messageId: 'msg_1' } as never;
      const principal = { serverId: 's', agentId: 'a' } as never;
      for (const [n, which] of (['extension', 'kb_search', 'kb_fetch'] as const).entries()) for (const base of cases) {
        const c = { ...base, which, status: base.statuses[n]! };
        const text = outputText(c.o);
        let frame: string;
        if (c.which === 'extension') {
          up.plan(c.status, c.status === 200 ? JSON.stringify({ item: { title: text, tags: [text], [c.o.secret]: 1 } }) : JSON.stringify({ error: { message: text, detail: text } }));
          const got = await settle(forwardToUpstream(ext, 'get', {}, new AbortController().signal, () => ({ ok: true }) as never));
          if (got.ok) {
            const out = gate.json(policy, {}, got.value);
            frame = out.ok ? out.body : JSON.stringify(gate.error(out.error));
          } else frame = JSON.stringify(gate.error(got.error));
        } else {
          // The upstream sends each secret whole (one that cuts a secret itself sends a piece no one can recognize).
          const short = outputText({ ...c.o, size: Math.min(c.o.size, 100) });
          const answer = c.which === 'kb_search'
            ? { hits: [{ docId: 'd1', title: 'Upstream doc', snippet: short, score: 1 }], hasMore: false }
            : { docId: 'd1', title: 'Upstream doc', text: outputText({ ...c.o, size: Math.min(c.o.size, 6000) }), lineStart: 1, lineEnd: 1, hasMore: false };
          // Error messages are quoted clipped: the secret is placed where a cut before masking would split it.
          up.plan(c.status, c.status === 200 ? JSON.stringify(answer) : JSON.stringify({ error: { message: `${'m'.repeat(c.o.seed % 320)}${c.o.secret}${text}` } }));
          const call: Promise<unknown> = c.which === 'kb_search' ? kb.search(principal, turn, { query: 'q', limit: 5 }, new AbortController().signal) : kb.fetch(principal, turn, { docId: 'd1' }, new AbortController().signal);
          const got = await settle(call);
          frame = got.ok ? frameOf(gate, c.which, {}, got.value) : JSON.stringify(gate.error(got.error));
        }
        assertNoLeak(c.o.secret, frame, `${c.which} upstream (HTTP ${c.status})`);
      }
    }),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});

test('property: the log — every diagnostic line is masked by the log\'s writer (2,000 lines)', () => {
  const caseArb = fc.record({ o: outputArb, key: fc.boolean(), nested: fc.boolean() });
  fc.assert(
    fc.property(fc.array(caseArb, { minLength: BATCHES.size, maxLength: BATCHES.size }), (cases) => {
      const secrets = new SecretSet();
      cases.forEach((c, i) => secrets.add(fixedSource(names(cases.length)[i]!, c.o.secret)));
      const lines: string[] = [];
      const diag = createDiag({ now: () => 0 } as never, secrets, (l) => lines.push(l));
      cases.forEach((c, i) => {
        const text = outputText(c.o);
        const detail = c.nested ? { error: { message: text, list: [text] } } : c.key ? { [c.o.secret]: 'v', path: text } : { path: text, error: String(new Error(text)) };
        // Distinct event names: the per-kind rate limit would otherwise drop most lines.
        diag(`event_${i}`, detail);
        assertNoLeak(c.o.secret, lines[lines.length - 1]!, 'log line');
      });
      assert.equal(lines.length, cases.length);
    }),
    { numRuns: BATCHES.runs, endOnFailure: true, includeErrorInReport: true },
  );
});
