import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  cli,
  startDaemon as startExecDaemon,
  type SpawnedDaemon as ExecDaemon,
  startRuntime,
  type Daemon,
  type Runtime,
} from './daemon.js';
import { post, rpc } from './http.js';
import { connectApp, echoTool, type App } from './client-tools.js';
import { lookupTool, spawnServe, type StdioApp } from './serve-stdio.js';
import { startUpstream } from './extension-upstream.js';

/**
 * A real daemon (built CLI, temp home) set up so that one agent can reach
 * every transport the audit trail records: Exec actions, an installed
 * extension (upstream on loopback), MCP built-ins, a declared command tool,
 * a client tool over HTTP/SSE and one over stdio, and kb_search against a
 * configured kb upstream. Everything is torn down after the test.
 */
export interface AuditedDaemon {
  readonly d: ExecDaemon;
  readonly rt: Runtime;
  readonly base: string;
  readonly app: App;
  readonly stdio: StdioApp;
  exec(
    domain: string,
    action: string,
    input: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any }>;
  tool(
    name: string,
    args: Record<string, unknown>,
    meta?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<any>;
  /** Calls a client tool and has the HTTP/SSE app (or the stdio child) answer it. */
  clientHttp(args: Record<string, unknown>, answer?: Record<string, unknown>): Promise<any>;
  clientStdio(
    args: Record<string, unknown>,
    answer?: { status?: 'success' | 'error'; text?: string },
  ): Promise<any>;
  /** `agentteam audit ...` with --json; the parsed stdout. */
  audit(args: string[]): Promise<any>;
}

export const NODE = process.execPath;

export interface AuditedOptions {
  readonly store?: string;
  readonly audit?: Record<string, unknown>;
  readonly env?: Record<string, string>;
  /** The declared tool's script (node -e); default: prints "said hello". */
  readonly declaredScript?: string;
  readonly home?: string;
}

let rpcId = 0;

export async function startAudited(
  t: TestContext,
  opts: AuditedOptions = {},
): Promise<AuditedDaemon> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'agentteam-audit-'));
  mkdirSync(join(home, 'tools'), { recursive: true });
  writeFileSync(
    join(home, 'tools', 'echo.json'),
    JSON.stringify({
      name: 'say_hello',
      description: 'Says hello.',
      annotations: { readOnlyHint: true },
      needs: {
        type: 'object',
        properties: { who: { type: 'string' } },
        additionalProperties: false,
      },
      transport: {
        type: 'command',
        argv: [NODE, '-e', opts.declaredScript ?? 'process.stdout.write("said hello")'],
        timeoutMs: 10_000,
      },
    }),
  );
  if (opts.audit) writeFileSync(join(home, 'audit.json'), JSON.stringify(opts.audit));
  const kb = await kbUpstream();
  t.after(() => new Promise<void>((r) => kb.close(() => r())));
  writeFileSync(
    join(home, 'kb.json'),
    JSON.stringify({
      upstream: { url: `http://127.0.0.1:${(kb.address() as AddressInfo).port}`, timeoutMs: 5000 },
    }),
  );
  const up = await startUpstream();
  t.after(() => up.close());
  const env = { ...(opts.store ? { AGENTTEAM_STORE_URL: opts.store } : {}), ...opts.env };
  const d = await startExecDaemon({ home, env });
  t.after(() => d.close());
  const asMcp: Daemon = d;
  const ext = join(home, 'github.json');
  writeFileSync(
    ext,
    readFileSync(new URL('../../examples/extensions/github.json', import.meta.url), 'utf8').replace(
      'http://127.0.0.1:8787',
      up.url,
    ),
  );
  const installed = await cli(home, ['extension', 'install', ext]);
  assert.equal(installed.code, 0, installed.stderr);
  const human = await cli(home, [
    'message',
    'post',
    '--target',
    'channel:general',
    '--as',
    'human:ada',
    'How do we deploy?',
  ]);
  assert.equal(human.code, 0, human.stderr);
  const messageId = JSON.parse(human.stdout).data.message.id as string;
  const rt = await startRuntime(asMcp, {
    server: 'local',
    agent: 'a1',
    runArgs: ['--turn-target', 'channel:general', '--turn-message', messageId],
  });
  t.after(() => rt.close());
  const app = await connectApp(asMcp);
  t.after(() => app.close());
  const reg = await app.register('editor', [echoTool('editor_echo')]);
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const stdio = spawnServe(asMcp);
  t.after(() => stdio.close());
  const init = await stdio.init([lookupTool()]);
  assert.ok(init.result, JSON.stringify(init));
  const base = rt.env.AGENTTEAM_EXEC_BASE_URL!;
  const tool: AuditedDaemon['tool'] = async (name, args, meta, headers = {}) => {
    const res = await rpc(
      rt.mcpUrl,
      rt.token(),
      {
        jsonrpc: '2.0',
        id: ++rpcId,
        method: 'tools/call',
        params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
      },
      headers,
    );
    assert.equal(res.status, 200, res.body);
    return JSON.parse(res.body);
  };
  return {
    d,
    rt,
    base,
    app,
    stdio,
    tool,
    exec: async (domain, action, input, headers = {}) => {
      const r = await post(
        `${base}/${domain}/${action}`,
        rt.token(),
        JSON.stringify(input),
        headers,
      );
      return { status: r.status, json: r.json };
    },
    async clientHttp(args, answer = { ok: true, content: [{ type: 'text', text: 'echoed' }] }) {
      const seen = app.frames.length;
      const pending = tool('editor_echo', args);
      const req = await app.next<{ request_id: string }>(
        (f) => f.type === 'client_tool.request' && app.frames.indexOf(f) >= seen,
      );
      assert.equal((await app.claim(req.data.request_id)).status, 200);
      assert.equal((await app.answer(req.data.request_id, answer)).status, 200);
      return pending;
    },
    async clientStdio(args, answer = { text: 'found' }) {
      const pending = tool('client__lookup_record', args);
      const call = await stdio.nextCall();
      await stdio.answer(call, answer);
      return pending;
    },
    async audit(args) {
      const r = await cli(home, ['audit', '--json', ...args]);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).data;
    },
  };
}

/** A kb upstream on loopback that answers every search with one hit. */
function kbUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          req.url === '/v1/knowledge/search'
            ? {
                hits: [
                  { docId: 'up-1', title: 'Upstream doc', snippet: 'from upstream', score: 1 },
                ],
                hasMore: false,
              }
            : { docId: 'up-1', title: 'Upstream doc', text: 'upstream text', hasMore: false },
        ),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Waits until the trail holds at least `n` rows (the recorder writes every 200 ms). */
export async function rowsAtLeast(a: AuditedDaemon, n: number, ms = 10_000): Promise<any[]> {
  const until = Date.now() + ms;
  for (;;) {
    const page = await a.audit(['--limit', '100']);
    if (page.entries.length >= n || Date.now() > until) return page.entries;
    await new Promise((r) => setTimeout(r, 100));
  }
}
