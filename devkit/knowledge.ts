import { strict as assert } from 'node:assert';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { startRuntime, type Daemon, type Runtime } from './daemon.js';
import { rpc } from './http.js';

let rpcId = 0;

/** One MCP tools/call over raw HTTP: the structured result, or the error envelope's `error` when isError. */
export async function callTool(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError: boolean; data: unknown }> {
  const res = await rpc(url, token, {
    jsonrpc: '2.0',
    id: ++rpcId,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  assert.equal(res.status, 200, res.body);
  const body = JSON.parse(res.body) as {
    result?: { isError: boolean; content: { text: string }[]; structuredContent?: unknown };
  };
  assert.ok(body.result, res.body);
  const text = body.result.content[0]?.text ?? '';
  return {
    isError: body.result.isError,
    data: body.result.isError
      ? (JSON.parse(text) as { error: unknown }).error
      : body.result.structuredContent,
  };
}

export interface ToolError {
  code: string;
  message: string;
  hint?: string;
  metadata?: Record<string, unknown>;
}

export interface SearchPage {
  hits: { docId: string; title: string; snippet: string; score: number }[];
  hasMore: boolean;
  nextCursor?: string;
}
export interface FetchChunk {
  docId: string;
  title: string;
  text: string;
  lineStart: number;
  lineEnd: number;
  hasMore: boolean;
  nextCursor?: string;
}

/** Posts `text` to `target` as `as` through the CLI; the new message's id. */
export async function postMessage(
  d: Daemon,
  target: string,
  as: string,
  text: string,
): Promise<string> {
  const r = await d.cli(['message', 'post', '--target', target, '--as', as, text]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { data: { message: { id: string } } }).data.message.id;
}

/** A runtime of `agent` in a turn on message `messageId` of `target` (the knowledge tools answer only inside one). */
export function turnRuntime(
  d: Daemon,
  agent: string,
  target: string,
  messageId: string,
): Promise<Runtime> {
  return startRuntime(d, {
    server: 'local',
    agent,
    runArgs: ['--turn-target', target, '--turn-message', messageId],
  });
}

/**
 * A runtime that may call `kb_search`, against a knowledge upstream of the
 * test's own: the upstream (loopback, no hits) keeps every request's
 * headers in `seen`, the daemon's `kb.json` points at it until the test
 * ends, and the runtime is in a turn on a person's question in `channel`
 * (the knowledge tools answer only inside a turn).
 */
export async function kbTurn(
  t: TestContext,
  d: Daemon,
  opts: { channel: string; agent: string },
): Promise<{ seen: IncomingHttpHeaders[]; rt: Runtime }> {
  const seen: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.headers);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ hits: [], hasMore: false }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => upstream.close(() => r())));
  writeFileSync(
    join(d.home, 'kb.json'),
    JSON.stringify({
      upstream: {
        url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        timeoutMs: 2000,
      },
    }),
  );
  t.after(() => rmSync(join(d.home, 'kb.json'), { force: true }));
  assert.equal((await d.cli(['daemon', 'reload'])).code, 0);
  const messageId = await postMessage(d, opts.channel, 'human:ada', 'How do we deploy?');
  const rt = await turnRuntime(d, opts.agent, opts.channel, messageId);
  t.after(() => rt.close());
  return { seen, rt };
}
