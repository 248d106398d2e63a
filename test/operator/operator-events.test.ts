import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  OperatorCallError,
  operatorClient,
  type OperatorRequest,
  type OperatorStream,
} from '../../lib/operator-client.js';

/**
 * The typed client's event streams (lib/operator-client.ts over
 * lib/event-stream.ts): the one reader of `/api/v1/events` for every caller.
 */

const noCalls = async () => ({ status: 500, json: null });

/** A stream transport that hands over `chunks` and records what it was asked. */
function fake(status: number, chunks: string[], hold = false) {
  const asked: { req: OperatorRequest; signal: AbortSignal }[] = [];
  const transport = async (req: OperatorRequest, signal: AbortSignal): Promise<OperatorStream> => {
    asked.push({ req, signal });
    async function* body() {
      for (const c of chunks) yield c;
      if (hold)
        await new Promise((_r, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted'))),
        );
    }
    return { status, chunks: body() };
  };
  return { asked, client: operatorClient(noCalls, transport) };
}

const frame = (seq: number, type: string, data: unknown) =>
  `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ seq, type, data })}\n\n`;

test('events: frames cut anywhere, CRLF, comments and multi-line data read as the daemon sent them', async () => {
  const text = `: comment\n\n${frame(1, 'hello', { client_id: 'c_1' })}${frame(2, 'daemon.log', { n: 1, line: 'x' }).replace(/\n/g, '\r\n')}data:{"seq":3,\ndata: "type":"t","data":{"a":1}}\n\ndata: not json\n\n`;
  // Every cut point of the text into two chunks gives the same events.
  for (let cut = 0; cut <= text.length; cut += 7) {
    const { asked, client } = fake(200, [text.slice(0, cut), text.slice(cut)]);
    const got = [];
    for await (const e of client.events('events.open', { query: { client_tools: '1' } }))
      got.push(e);
    assert.deepEqual(got, [
      { seq: 1, type: 'hello', data: { client_id: 'c_1' } },
      { seq: 2, type: 'daemon.log', data: { n: 1, line: 'x' } },
      { seq: 3, type: 't', data: { a: 1 } },
    ]);
    assert.deepEqual(asked[0]!.req, { method: 'GET', path: '/api/v1/events?client_tools=1' });
  }
});

test('events: a refused stream throws the envelope as an OperatorCallError', async () => {
  const { client } = fake(403, [
    JSON.stringify({ ok: false, error: { code: 'forbidden', message: 'no' } }),
  ]);
  await assert.rejects(
    (async () => {
      for await (const _ of client.events('events.open', { query: {} }));
    })(),
    (err: unknown) =>
      err instanceof OperatorCallError && err.status === 403 && err.code === 'forbidden',
  );
});

test('events: close() ends the iteration quietly and aborts the transport; so does a reader that stops', async () => {
  const held = fake(200, [frame(1, 'hello', {})], true);
  const events = held.client.events('events.open', { query: {} });
  const got: string[] = [];
  for await (const e of events) {
    got.push(e.type);
    setImmediate(() => events.close());
  }
  assert.deepEqual(got, ['hello']);
  assert.equal(held.asked[0]!.signal.aborted, true);

  const early = fake(200, [frame(1, 'hello', {}), frame(2, 'x', {})], true);
  for await (const _ of early.client.events('events.open', { query: {} })) break;
  assert.equal(early.asked[0]!.signal.aborted, true);
});

test('events: a client made without a stream transport says so', () => {
  assert.throws(
    () => operatorClient(noCalls).events('events.open', { query: {} }),
    /no stream transport/,
  );
});
