import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';
import { connectAgent, connectApp, type App } from '../../devkit/client-tools.js';

/**
 * Replays every wire fixture in test/fixtures/client-tools/ against a real
 * daemon: requests are sent as written, responses and event frames must
 * match exactly. `$name` stands for a value of this run (a client id, a
 * request id): bound at its first appearance in a response or frame, then
 * substituted everywhere. The test fails if a fixture is never replayed.
 */

// tsc builds this file to dist/test/; the fixtures stay in the source folder.
const DIR = new URL('../../../test/fixtures/client-tools/', import.meta.url);

interface HttpFixture {
  kind: 'http';
  request: { method: string; path: string; body?: unknown };
  response: { status: number; body: unknown };
}
interface EventFixture {
  kind: 'event';
  stream: 'app' | 'watcher';
  frame: { seq: number | string; type: string; data: unknown };
}
type Fixture = (HttpFixture | EventFixture) & { description: string };

const VAR = /\$([a-z_]+)/g;

function substitute(v: unknown, vars: Map<string, unknown>): unknown {
  if (typeof v === 'string') {
    const whole = /^\$([a-z_]+)$/.exec(v);
    if (whole && vars.has(whole[1]!)) return vars.get(whole[1]!);
    return v.replace(VAR, (m, name: string) => (vars.has(name) ? String(vars.get(name)) : m));
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, vars)]));
  return v;
}

/** Binds unbound `$name` placeholders of `expected` from `actual`, so the comparison that follows is exact. */
function bind(expected: unknown, actual: unknown, vars: Map<string, unknown>): void {
  if (typeof expected === 'string') {
    const whole = /^\$([a-z_]+)$/.exec(expected);
    if (whole && !vars.has(whole[1]!) && actual !== undefined) vars.set(whole[1]!, actual);
    return;
  }
  if (
    expected === null ||
    typeof expected !== 'object' ||
    actual === null ||
    typeof actual !== 'object'
  )
    return;
  for (const [k, x] of Object.entries(expected))
    bind(x, (actual as Record<string, unknown>)[k], vars);
}

test('client tools: every wire fixture replays against a real daemon', async (t) => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();
  assert.ok(files.length >= 20, `fixtures in ${DIR.pathname}`);
  const fixtures = new Map(
    files.map((f) => [
      f.replace(/\.json$/, ''),
      JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as Fixture,
    ]),
  );
  const replayed = new Set<string>();

  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const app = await connectApp(d);
  const watcher = await connectApp(d, { provider: false });
  const otherApp = await connectApp(d);
  t.after(() => {
    for (const x of [app, watcher, otherApp]) x.close();
  });
  const agent = await connectAgent(d, 'a1');
  t.after(() => agent.close());
  const vars = new Map<string, unknown>([
    ['client_id', app.clientId],
    ['other_app_id', otherApp.clientId],
  ]);
  const consumed = new Map<App, number>([
    [app, 0],
    [watcher, 0],
  ]);

  async function replay(name: string): Promise<void> {
    const fx = fixtures.get(name);
    assert.ok(fx, `fixture ${name}`);
    replayed.add(name);
    if (fx.kind === 'http') {
      const body = fx.request.body === undefined ? undefined : substitute(fx.request.body, vars);
      const r = await app.call(fx.request.method, String(substitute(fx.request.path, vars)), body);
      bind(fx.response.body, r.body, vars);
      assert.deepEqual(
        { status: r.status, body: r.body },
        substitute(fx.response, vars),
        `${name}: ${fx.description}`,
      );
    } else {
      const stream = fx.stream === 'app' ? app : watcher;
      const after = consumed.get(stream)!;
      const frame = await stream.next((f) => f.seq > after && f.type === fx.frame.type);
      consumed.set(stream, frame.seq);
      bind(fx.frame, frame, vars);
      assert.deepEqual(frame, substitute(fx.frame, vars), `${name}: ${fx.description}`);
    }
  }
  const newRequest = () => vars.delete('request_id');
  const claimNext = async (text: string) => {
    const f = await app.next<{ request_id: string }>(
      (x) =>
        x.type === 'client_tool.request' &&
        (x.data.arguments as { text?: string } | undefined)?.text === text,
    );
    consumed.set(app, f.seq);
    vars.set('request_id', f.data.request_id);
    assert.equal((await app.claim(f.data.request_id)).status, 200);
  };

  await replay('01-event-hello');
  await replay('02-register');
  await replay('03-event-tools-changed');
  const first = agent.client.callTool({ name: 'notes_echo', arguments: { text: 'hi' } });
  await replay('04-event-request');
  await replay('05-event-request-redacted');
  for (const n of [
    '06-pending',
    '23-pending-ids-only',
    '07-claim',
    '08-claim-already-claimed',
    '09-claim-owned-by-other',
    '10-result-not-claimant',
    '11-result-text',
  ])
    await replay(n);
  assert.deepEqual((await first).content, [{ type: 'text', text: 'hi back' }]);
  await replay('12-result-already-settled');
  await replay('13-claim-unknown-request');

  newRequest();
  const shot = agent.client.callTool({ name: 'notes_screenshot', arguments: { text: 'shot' } });
  await claimNext('shot');
  await replay('14-result-image');
  const fx14 = fixtures.get('14-result-image') as HttpFixture;
  assert.deepEqual(
    (await shot).content,
    (fx14.request.body as { content: unknown }).content,
    'the image reaches the agent verbatim',
  );

  newRequest();
  const failing = agent.client.callTool({ name: 'notes_echo', arguments: { text: 'fail' } });
  await claimNext('fail');
  await replay('15-result-app-error');
  const failed = await failing;
  assert.equal(failed.isError, true);
  assert.deepEqual(failed.content, [
    { type: 'text', text: 'note_locked: the note is open elsewhere' },
  ]);

  newRequest();
  const short = await connectAgent(d, 'a1');
  const stopped = short.client
    .callTool({ name: 'notes_echo', arguments: { text: 'stop' } })
    .catch(() => undefined);
  await claimNext('stop');
  consumed.set(watcher, watcher.frames.at(-1)!.seq);
  await short.close();
  await replay('16-event-cancelled');
  vars.delete('seq');
  await replay('17-event-cancelled-redacted');
  await stopped;

  for (const n of [
    '18-register-invalid-tool',
    '19-register-too-many-tools',
    '20-register-unknown-client',
    '21-register-name-conflict',
    '22-claim-unknown-client',
  ])
    await replay(n);
  assert.deepEqual(
    files.map((f) => f.replace(/\.json$/, '')).filter((f) => !replayed.has(f)),
    [],
    'every fixture is replayed',
  );
});
