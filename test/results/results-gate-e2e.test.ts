import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ROOT } from '../../devkit/cli.js';
import { openLease } from '../../devkit/lease.js';
import { rpc, post } from '../../devkit/http.js';
import { connectApp, echoTool } from '../../devkit/client-tools.js';
import { prepareHome, watchEvents, type Home } from '../../devkit/tools.js';
import { assertNoLeak, headOutside, plantedArb } from '../../devkit/gate-property.js';
import { scale } from '../../devkit/scale.js';

/**
 * The result gate end to end, through a real daemon: secrets configured as
 * the daemon's credential variables are planted in every producer (notes,
 * kb documents, a declared tool's stdout and stderr, a client tool's answer,
 * an extension upstream's answer), and every route family is asked for them
 * (MCP, Exec, the operator API, the event stream); nothing an agent, an app,
 * the event stream, a spill file or daemon.log receives holds 8 or more bytes
 * of one, raw or JSON-escaped. Fewer cases than the in-process property
 * tests (results-gate-property.test.ts), each through the whole daemon:
 * 8 in `npm test`, 24 at soak scale (devkit/scale.ts).
 */

const E2E_CASES = scale(8, 24);

let rpcId = 0;
const toolCall = (url: string, token: string, name: string, args: Record<string, unknown>) =>
  rpc(url, token, {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'tools/call',
    params: { name, arguments: args },
  });

/** A local upstream (extension and knowledge) answering the next planned body. */
async function plannedUpstream(
  t: import('node:test').TestContext,
): Promise<{ url: string; plan(status: number, body: unknown): void }> {
  let next: { status: number; body: string } = { status: 200, body: '{}' };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(next.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    plan: (status, body) => (next = { status, body: JSON.stringify(body) }),
  };
}

/** A declared tool whose command prints case `which`'s text (stdout and stderr), plain or as said/shown/ask, failing when asked. */
function leakTool(home: string): Record<string, unknown> {
  const script = join(home, 'leak.js');
  writeFileSync(
    script,
    [
      "const fs = require('node:fs');",
      'const [which, mode] = [Number(process.argv[2]), process.argv[3]];',
      "const { text: t, ask } = JSON.parse(fs.readFileSync(process.argv[4], 'utf8'))[which];",
      "if (mode === 'json') process.stdout.write(JSON.stringify({ said: t, shown: t, ask }));",
      'else process.stdout.write(t);',
      'process.stderr.write(t);',
      "process.exitCode = mode === 'fail' ? 3 : 0;",
    ].join('\n'),
  );
  return {
    name: 'leak_text',
    description: 'Prints a planted text.',
    needs: {
      type: 'object',
      properties: { which: { type: 'integer' }, mode: { type: 'string' } },
      required: ['which', 'mode'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    transport: {
      type: 'command',
      argv: [process.execPath, script, '{which}', '{mode}', join(home, 'leak-texts.json')],
      timeoutMs: 20_000,
      outputBytes: 1024,
    },
  };
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir).map((n) => readFileSync(join(dir, n), 'utf8'));
  } catch {
    return [];
  }
}

/** Every output collected on the way, checked against every secret at the end. */
class Received {
  readonly outputs: { what: string; text: string }[] = [];
  add(what: string, text: string): string {
    this.outputs.push({ what, text });
    return text;
  }
  check(secrets: readonly string[]): void {
    for (const { what, text } of this.outputs) for (const s of secrets) assertNoLeak(s, text, what);
  }
}

test(`end to end: ${E2E_CASES} secrets planted in every producer never reach an agent, an app, the event stream, a spill file or the log`, async (t) => {
  // Environment values cannot hold NUL; everything else the generators make is kept.
  const planted = fc.sample(
    plantedArb({ long: true, maxLines: 6 }).filter((p) => !p.secret.includes('\u0000')),
    { numRuns: E2E_CASES },
  );
  const secrets = planted.map((p) => p.secret);
  const texts = planted.map((p, i) =>
    p.text.replace(p.secret, () => ` cw${i}q ${p.secret} cw${i}q `),
  );
  const up = await plannedUpstream(t);
  const h: Home = await prepareHome(t, {
    env: Object.fromEntries(secrets.map((s, i) => [`GATE_E2E_TOKEN_${i}`, s])),
    setup: (home) => {
      mkdirSync(join(home, 'memory', 'a1'), { recursive: true });
      mkdirSync(join(home, 'kb'), { recursive: true });
      texts.forEach((text, i) => {
        writeFileSync(join(home, 'memory', 'a1', `n${i}.md`), text);
        writeFileSync(join(home, 'kb', `d${i}.md`), text);
      });
      const heads = texts.map((x, i) => headOutside(x, secrets[i]!, 6000));
      writeFileSync(
        join(home, 'leak-texts.json'),
        JSON.stringify(
          heads.map((text, i) => ({ text, ask: headOutside(text, secrets[i]!, 500) })),
        ),
      );
      mkdirSync(join(home, 'tools'), { recursive: true });
      writeFileSync(join(home, 'tools', 'leak.json'), JSON.stringify(leakTool(home)));
    },
  });
  const got = new Received();
  const seenRequests = new Set<string>();

  // An extension whose upstream answers with the planted texts.
  const extFile = join(h.home, 'github.json');
  writeFileSync(
    extFile,
    readFileSync(join(ROOT, 'examples/extensions/github.json'), 'utf8').replace(
      'http://127.0.0.1:8787',
      up.url,
    ),
  );
  const installed = await h.cli(['extension', 'install', extFile]);
  assert.equal(installed.code, 0, installed.stderr);

  // A person's message to bind the turn kb_search and kb_fetch require.
  const human = await h.op('POST', '/api/v1/messages', {
    serverId: 'local',
    target: 'channel:general',
    author: 'human:ann',
    content: 'find it',
  });
  assert.equal(human.status, 201, human.body);
  const messageId = (JSON.parse(human.body) as { data: { message: { id: string } } }).data.message
    .id;
  const lease = await openLease(h as never, {
    serverId: 'local',
    agentId: 'a1',
    turnTarget: 'channel:general',
    turnMessageId: messageId,
  });
  t.after(() => lease.close());
  const token = lease.token();
  const base = (lease.data as unknown as { execBaseUrl: string }).execBaseUrl;

  // An app offering a client tool, and an operator watching declared tools' shown/asked events.
  const app = await connectApp(h as never);
  t.after(() => app.close());
  assert.equal((await app.register('gate', [echoTool('gate_echo')])).status, 200);
  const watcher = await watchEvents(h, ['tool.shown', 'tool.asked']);
  t.after(() => watcher.close());

  const ready = async (name: string, args: Record<string, unknown>) => {
    for (let i = 0; i < 100; i++) {
      const r = await toolCall(lease.mcpUrl, token, name, args);
      if (!r.body.includes('index_unavailable')) return r;
      await new Promise((res) => setTimeout(res, 200));
    }
    throw new Error(`${name}: the index never became ready`);
  };

  for (let i = 0; i < E2E_CASES; i++) {
    const { query } = planted[i]!;
    for (const q of [`cw${i}q`, query]) {
      got.add(
        `memory_search ${JSON.stringify(q)}`,
        (await ready('memory_search', { query: q, limit: 20 })).body,
      );
      got.add(
        `kb_search ${JSON.stringify(q)}`,
        (await ready('kb_search', { query: q, limit: 20 })).body,
      );
    }
    assert.match(
      got.outputs[got.outputs.length - 4]!.text,
      new RegExp(`n${i}\\.md`),
      'the note is found by its code word',
    );
    // Every kb_fetch page, and the pages joined as an agent would.
    let cursor: string | undefined;
    let whole = '';
    for (let page = 0; page < 100; page++) {
      const r = got.add(
        `kb_fetch d${i}.md page ${page}`,
        (
          await toolCall(lease.mcpUrl, token, 'kb_fetch', {
            docId: `d${i}.md`,
            ...(cursor ? { cursor } : {}),
          })
        ).body,
      );
      const data = (
        JSON.parse(r) as {
          result: { structuredContent: { text: string; hasMore: boolean; nextCursor?: string } };
        }
      ).result.structuredContent;
      whole += data.text;
      if (!data.hasMore) break;
      cursor = data.nextCursor;
    }
    got.add(`kb_fetch d${i}.md reassembled`, whole);
    // The declared tool: plain, split into said/shown/ask, and failing (its stderr tail quoted).
    for (const mode of ['plain', 'json', 'fail'])
      got.add(
        `declared tool (${mode})`,
        (await toolCall(lease.mcpUrl, token, 'leak_text', { which: i, mode })).body,
      );
    // The extension: an answer and an error body.
    up.plan(200, { removed: headOutside(texts[i]!, secrets[i]!, 4000) });
    got.add(
      'extension answer',
      (await post(`${base}/github/unwatch`, token, JSON.stringify({ id: 'w_1' }))).text,
    );
    up.plan(500, { message: headOutside(texts[i]!, secrets[i]!, 4000) });
    got.add(
      'extension error',
      (await post(`${base}/github/unwatch`, token, JSON.stringify({ id: 'w_1' }))).text,
    );
    // The client tool: the agent's arguments reach the app masked; the app's answer reaches the agent masked.
    const pending = toolCall(lease.mcpUrl, token, 'gate_echo', { text: `pass ${secrets[i]}` });
    const req = await app.next<{ request_id: string }>(
      (f) =>
        f.type === 'client_tool.request' &&
        !seenRequests.has((f.data as { request_id: string }).request_id),
    );
    seenRequests.add(req.data.request_id);
    await app.claim(req.data.request_id);
    await app.answer(req.data.request_id, {
      ok: true,
      content: [
        { type: 'text', text: texts[i]! },
        {
          type: 'text',
          text: 'meta',
          _meta: { [secrets[i]!]: headOutside(texts[i]!, secrets[i]!, 300) },
        },
      ],
    });
    got.add('client tool answer', (await pending).body);
  }
  got.add('app event stream', JSON.stringify(app.frames));
  got.add('operator event stream', JSON.stringify(watcher.frames));
  got.add('operator tools log', (await h.op('GET', '/api/v1/tools/log')).body);
  for (const [n, text] of filesUnder(join(h.home, 'spill')).entries())
    got.add(`spill file ${n}`, text);
  assert.ok(filesUnder(join(h.home, 'spill')).length > 0, 'long outputs were spilled');
  got.check(secrets);
  // The log, once the daemon has written what it writes at stop.
  await h.cli(['daemon', 'stop']);
  const log = readFileSync(join(h.home, 'daemon.log'), 'utf8');
  for (const s of secrets) assertNoLeak(s, log, 'daemon.log');
});
