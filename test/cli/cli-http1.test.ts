import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ResponseReader } from '../../cli/exec/http1.js';
import { postJson } from '../../cli/exec/request.js';
import { capture, cuts, readAll, replay, shape, shapeServer, split } from '../../devkit/http1.js';

/**
 * The CLI's HTTP/1.1 exchange (cli/exec/request.ts over cli/exec/http1.ts)
 * against the wire as node:http's server writes it: every response shape is
 * produced by a real node:http server, its bytes captured off the socket,
 * and then fed to the reader (and, over TCP, to postJson) split at random
 * points. What the real server meant to send is the oracle. Here: the answer
 * is read whole, however it is cut, and never longer or shorter than sent.
 */

test('any response node:http writes is read whole, however TCP splits it (interim responses, chunked, Content-Length, close-framed)', async (t) => {
  const { port } = await shapeServer(t);
  await fc.assert(
    fc.asyncProperty(shape, cuts, async (s, c) => {
      const wire = await capture(port, s);
      const res = readAll(split(wire, c), s.framing === 'close');
      assert.ok(res, 'complete');
      assert.equal(res.status, s.status);
      assert.equal(res.body.toString('utf8'), s.status === 204 ? '' : s.body);
      assert.equal(res.headers.find(([n]) => n === 'content-type')?.[1], 'application/json');
    }),
    { numRuns: 150 },
  );
});

test('a framed response is complete before the close, and one cut short is an ECONNRESET, never a shorter body', async (t) => {
  const { port } = await shapeServer(t);
  await fc.assert(
    fc.asyncProperty(
      shape.filter((s) => s.framing !== 'close' && s.status !== 204 && s.body.length > 0),
      fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      async (s, f) => {
        const wire = await capture(port, s);
        // Without the close, the framing alone says where the response ends.
        assert.equal(readAll([wire], false)?.body.toString('utf8'), s.body);
        const short = wire.subarray(0, Math.floor(f * (wire.length - 1)));
        const r = new ResponseReader();
        assert.equal(r.push(short), undefined);
        assert.throws(
          () => r.end(),
          (e: NodeJS.ErrnoException) => e.code === 'ECONNRESET',
        );
      },
    ),
    { numRuns: 100 },
  );
});

test('postJson over TCP: the real server response split into random writes gives the status and body node:http would', async (t) => {
  const { port } = await shapeServer(t);
  await fc.assert(
    fc.asyncProperty(shape, cuts, async (s, c) => {
      const wire = await capture(port, s);
      const relay = await replay(t, split(wire, c));
      const res = await postJson(`http://127.0.0.1:${relay}/x/task/get`, 'tok', '{}', 5000);
      assert.ok(res.ok, res.ok ? '' : res.error.message);
      assert.equal(res.status, s.status);
      assert.equal(res.body, s.status === 204 ? '' : s.body);
    }),
    { numRuns: 40 },
  );
});
