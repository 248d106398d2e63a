import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { CLIENT_TOOL_LIMITS, limitsOf, type Relay } from '../../catalog/client-tool-limits.js';
import { STDIO_LIMITS } from '../../catalog/stdio-tools.js';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { connectAgent, connectApp, waitUntil, type Agent } from '../../devkit/client-tools.js';
import { spawnServe } from '../../devkit/serve-stdio.js';
import { operatorCall } from '../../devkit/http.js';
import { toolError } from '../../devkit/tool-error.js';

/**
 * One case table through both relays: an HTTP/SSE app and the real
 * `agentteam serve --stdio` child. Each relay's adapter below spells a tool
 * in its own wire vocabulary (`timeout_s` or `timeout_ms`, a group or a
 * child's registry, content blocks or status/text); the cases speak the
 * broker's (milliseconds, the rows of the one limits table). Every row is
 * checked at the relay's limit and one past it, and every call case must
 * reach the agent as the same model-visible result.
 */

interface Tool {
  readonly name: string;
  readonly description: string;
  readonly input_schema: Record<string, unknown>;
  readonly timeoutMs?: number;
}

interface RelayUnderTest {
  readonly relay: Relay;
  /** A tool name of `bytes` bytes that this relay's name rule allows. */
  nameOf(i: number, bytes?: number): string;
  /** null when admitted, else the refusal's code. */
  register(tools: readonly Tool[]): Promise<string | null>;
  /** The next call this relay's app receives: answer it with text, or leave it unanswered. */
  serve(answer: string | null): Promise<void>;
  /** The app goes away (its stream or its stdin closes). */
  close(): Promise<void>;
}

const schemaOf = (bytes: number) => {
  const bare = JSON.stringify({ type: 'object', description: '' }).length;
  return { type: 'object', description: 'x'.repeat(bytes - bare) };
};
const tools = (r: RelayUnderTest, n: number): Tool[] =>
  Array.from({ length: n }, (_, i) => ({
    name: r.nameOf(i),
    description: 'A tool.',
    input_schema: { type: 'object' },
  }));
const one = (r: RelayUnderTest, extra: Partial<Tool>): Tool[] => [
  { name: r.nameOf(0), description: 'A tool.', input_schema: { type: 'object' }, ...extra },
];

async function httpRelay(d: Daemon): Promise<RelayUnderTest> {
  const app = await connectApp(d);
  return {
    relay: 'sse',
    nameOf: (i, bytes = 8) => `t${i}_`.padEnd(bytes, 'n'),
    async register(ts) {
      const r = await app.register(
        'g',
        ts.map(({ timeoutMs, ...t }) => ({
          ...t,
          ...(timeoutMs !== undefined ? { timeout_s: timeoutMs / 1000 } : {}),
        })),
      );
      return r.status === 200 ? null : r.body.error.code;
    },
    async serve(answer) {
      const req = await app.next<{ request_id: string }>(
        (f) => f.type === 'client_tool.request' && !served.has(f.seq),
      );
      served.add(req.seq);
      if (answer === null) return;
      await app.claim(req.data.request_id);
      await app.answer(req.data.request_id, {
        ok: true,
        content: [{ type: 'text', text: answer }],
      });
    },
    async close() {
      app.close();
    },
  };
}
const served = new Set<number>();
/** No stdio tool is offered any more (the previous child's registration is withdrawn). */
const noStdioTools = (r: { body: string }) =>
  !(JSON.parse(r.body).data.tools as { name: string }[]).some((x) => x.name.startsWith('client__'));

async function stdioRelay(d: Daemon): Promise<RelayUnderTest> {
  let app = spawnServe(d);
  return {
    relay: 'stdio',
    nameOf: (i, bytes = 12) => `client__t${i}_`.padEnd(bytes, 'n'),
    async register(ts) {
      // A refused initialize leaves the child uninitialized; an admitted one is final, so each try gets a fresh child.
      await app.close();
      await waitUntil(async () =>
        noStdioTools(await operatorCall(d, 'GET', '/api/v1/client-tools')),
      );
      app = spawnServe(d);
      const r = await app.init(
        ts.map(({ timeoutMs, ...t }) => ({
          ...t,
          ...(timeoutMs !== undefined ? { timeout_ms: timeoutMs } : {}),
        })),
      );
      return r.result ? null : r.error.data.code;
    },
    async serve(answer) {
      const call = await app.nextCall();
      if (answer !== null) await app.answer(call, { status: 'success', text: answer });
    },
    async close() {
      await app.close();
    },
  };
}

/** The codes each relay refuses a registration with (its contract's vocabulary). */
const REFUSED: Record<Relay, readonly string[]> = {
  sse: ['invalid_tool', 'too_many_tools'],
  stdio: ['invalid_params'],
};

async function limitRows(t: any, r: RelayUnderTest): Promise<void> {
  const L = limitsOf(r.relay);
  const rows: [string, Tool[], Tool[]][] = [
    [
      'toolsPerRegistration',
      tools(r, L.toolsPerRegistration),
      tools(r, L.toolsPerRegistration + 1),
    ],
    [
      'nameBytes',
      one(r, { name: r.nameOf(0, L.nameBytes) }),
      one(r, { name: r.nameOf(0, L.nameBytes + 1) }),
    ],
    [
      'descriptionBytes',
      one(r, { description: 'd'.repeat(L.descriptionBytes) }),
      one(r, { description: 'd'.repeat(L.descriptionBytes + 1) }),
    ],
    [
      'schemaBytes',
      one(r, { input_schema: schemaOf(L.schemaBytes) }),
      one(r, { input_schema: schemaOf(L.schemaBytes + 1) }),
    ],
    [
      'maxTimeoutMs',
      one(r, { timeoutMs: L.maxTimeoutMs }),
      // One past in the relay's own unit: a second over HTTP, a millisecond over stdio.
      one(r, { timeoutMs: L.maxTimeoutMs + (r.relay === 'sse' ? 1000 : 1) }),
    ],
  ];
  for (const [row, at, past] of rows) {
    await t.test(`${r.relay}: ${row} at the limit is admitted, one past it refused`, async () => {
      assert.equal(await r.register(at), null, `${row} at the limit`);
      const refused = await r.register(past);
      assert.ok(
        refused !== null && REFUSED[r.relay].includes(refused),
        `${row} one past: ${refused}`,
      );
    });
  }
}

/** The call cases: what the app does, and what the agent must read, the same through both relays. */
async function callCases(t: any, r: RelayUnderTest, agent: Agent): Promise<void> {
  const L = limitsOf(r.relay);
  const echo = r.nameOf(1);
  const slow = r.nameOf(2);
  // The shortest deadline that times out on both relays: HTTP's 0 never does.
  const shortest = Math.max(L.minTimeoutMs, 1000);
  assert.equal(
    await r.register([
      { name: echo, description: 'Echoes.', input_schema: { type: 'object' } },
      { name: slow, description: 'Slow.', input_schema: { type: 'object' }, timeoutMs: shortest },
    ]),
    null,
  );
  await waitUntil(async () => (await agent.client.listTools()).tools.some((x) => x.name === slow));
  await t.test(`${r.relay}: an answer reaches the agent as one text block`, async () => {
    const pending = agent.client.callTool({ name: echo, arguments: {} });
    await r.serve('done');
    const result = await pending;
    assert.deepEqual(
      { content: result.content, isError: result.isError },
      { content: [{ type: 'text', text: 'done' }], isError: false },
    );
  });
  await t.test(`${r.relay}: no answer within the deadline is the tool error timeout`, async () => {
    const pending = agent.client.callTool({ name: slow, arguments: {} });
    await r.serve(null);
    const e = toolError(await pending);
    assert.equal(e.code, 'timeout');
    assert.match(e.message, /did not answer within/);
  });
  await t.test(`${r.relay}: the app going away with a call pending is no_client`, async () => {
    const pending = agent.client.callTool({ name: echo, arguments: {} });
    await r.serve(null);
    await r.close();
    assert.equal(toolError(await pending).code, 'no_client');
  });
}

test('both client-tool relays: the same limits table and the same model-visible results', async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());

  // The stdio child announces the stdio column under the names its contract gives them.
  assert.equal(STDIO_LIMITS.tools, CLIENT_TOOL_LIMITS.toolsPerRegistration.stdio);
  assert.equal(STDIO_LIMITS.max_timeout_ms, CLIENT_TOOL_LIMITS.maxTimeoutMs.stdio);

  for (const open of [httpRelay, stdioRelay]) {
    const r = await open(d);
    await limitRows(t, r);
    await callCases(t, r, agent);
    await r.close();
  }
});
