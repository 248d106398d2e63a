import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { getEventListeners } from 'node:events';
import { ClientToolBroker } from '../../daemon/clienttools/broker.js';
import type { DaemonEvent } from '../../daemon/events/event.js';
import { openSse } from '../../daemon/http/sse.js';
import type { ClientToolSpec } from '../../daemon/clienttools/types.js';
import type { CallContext } from '../../daemon/tools/registry.js';
import type { Principal } from '../../daemon/auth/principal.js';
import { FakeClock } from '../../devkit/auth-clock.js';
import { gateWith } from '../../devkit/gate.js';

/**
 * The relay's call path waits for nothing: a parked call is published the
 * moment it is made, and its answer settles the agent's call within the same
 * turn of the event loop, with no timer besides the call's own deadline. A
 * coalescing delay, a polling loop or a deferred write would show here as an
 * armed timer or an outcome that needs a macrotask, however fast the host.
 */

/** A clock that records every timer armed through it (and fires none). */
class RecordingClock extends FakeClock {
  readonly armed: number[] = [];
  readonly cleared: unknown[] = [];
  override setTimeout(fn: () => void, ms: number) {
    this.armed.push(ms);
    return super.setTimeout(fn, ms);
  }
  override clearTimeout(t: Parameters<FakeClock['clearTimeout']>[0]) {
    this.cleared.push(t);
    super.clearTimeout(t);
  }
}

const principal = {
  authorizationId: 'a1',
  serverId: 'local',
  agentId: 'agent',
  sessionId: null,
  runId: null,
  workdir: null,
  primaryThreadId: null,
  turn: null,
} as Principal;
const ctx = (): CallContext => ({
  principal,
  threadId: null,
  signal: new AbortController().signal,
});
const tool = (timeoutS: number): ClientToolSpec => ({
  name: 'app_echo',
  description: 'Echoes.',
  input_schema: { type: 'object' },
  timeoutMs: timeoutS === 0 ? null : timeoutS * 1000,
  relay: 'sse',
});

/** Which comes first: the promise, or a macrotask queued now (setImmediate runs after every pending microtask). */
const beforeMacrotask = (p: Promise<unknown>) =>
  Promise.race([
    p.then(() => 'settled'),
    new Promise((r) => setImmediate(() => r('macrotask first'))),
  ]);

function setup(timeoutS: number) {
  const clock = new RecordingClock();
  const events: DaemonEvent[] = [];
  const broker = new ClientToolBroker(
    clock,
    { publish: (e) => events.push(e), toolsChanged: () => undefined },
    gateWith(),
  );
  const clientId = broker.connect(true);
  broker.register({ client_id: clientId, group: 'g', tools: [tool(timeoutS)] }, () => undefined);
  return { clock, events, broker, clientId };
}

test('a relayed call without a deadline arms no timer, is published at once and settles before any macrotask', async () => {
  const { clock, events, broker, clientId } = setup(0);
  const armedBefore = clock.armed.length;
  const outcome = broker.call('app_echo', { text: 'ping' }, ctx());
  // Published synchronously, inside call(): nothing between the agent and the app's event.
  const req = events.find((e) => e.type === 'client_tool.request');
  assert.ok(req, 'the request event was published before call() returned');
  assert.deepEqual(
    clock.armed.slice(armedBefore),
    [],
    'no timer on the call path of a call without a deadline',
  );
  const id = req.data.request_id as string;
  broker.claim(id, clientId);
  broker.result(id, { client_id: clientId, ok: true, content: [{ type: 'text', text: 'pong' }] });
  assert.equal(await beforeMacrotask(outcome), 'settled');
  assert.deepEqual(await outcome, {
    ok: true,
    frame: '{"content":[{"type":"text","text":"pong"}],"isError":false}',
    isError: false,
  });
  assert.deepEqual(clock.armed.slice(armedBefore), [], 'claim and result arm no timer either');
});

test('a relayed call with a deadline arms exactly that one timer, and its result clears it', async () => {
  const { clock, events, broker, clientId } = setup(30);
  const armedBefore = clock.armed.length;
  const outcome = broker.call('app_echo', {}, ctx());
  assert.deepEqual(
    clock.armed.slice(armedBefore),
    [30_000],
    'only the deadline, at the registered timeout',
  );
  const id = events.find((e) => e.type === 'client_tool.request')!.data.request_id as string;
  broker.claim(id, clientId);
  broker.result(id, { client_id: clientId, ok: true, content: [] });
  assert.equal(await beforeMacrotask(outcome), 'settled');
  assert.equal(clock.cleared.length, 1, 'the deadline is cleared when the answer comes');
  assert.equal(clock.nextAt(), undefined, 'no live timer is left behind');
});

test('parked calls of one authorization share one abort listener, and its abort ends every one of them', async () => {
  const { events, broker } = setup(0);
  const run = new AbortController();
  const calls = [0, 1, 2].map(() =>
    broker.call('app_echo', {}, { principal, threadId: null, signal: run.signal }),
  );
  assert.equal(
    getEventListeners(run.signal, 'abort').length,
    1,
    'one listener for three parked calls',
  );
  run.abort();
  for (const c of calls)
    assert.deepEqual(await c, { ok: false, code: 'cancelled', message: 'the agent stopped' });
  assert.equal(
    events.filter((e) => e.type === 'client_tool.cancelled').length,
    3,
    'the app is told of each',
  );
  assert.equal(broker.stats().pending, 0);
});

test('an event written to an SSE stream is readable at once, before any timer or macrotask', async () => {
  const clock = new RecordingClock();
  const { body, sink } = openSse({
    clock,
    heartbeatMs: 15_000,
    heartbeat: () => ': hb\n\n',
    onClose: () => undefined,
  });
  const reader = body.getReader();
  // The heartbeat is the stream's only timer (armed once at open), never the delivery of an event.
  assert.deepEqual(clock.armed, [15_000]);
  assert.equal(sink.write('event: x\ndata: {}\n\n'), true);
  const chunk = reader.read();
  assert.equal(await beforeMacrotask(chunk), 'settled');
  assert.equal(new TextDecoder().decode((await chunk).value), 'event: x\ndata: {}\n\n');
  assert.deepEqual(clock.armed, [15_000], 'writing an event arms nothing');
  sink.close();
});
