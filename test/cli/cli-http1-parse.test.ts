import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MAX_HEADER_BYTES, ResponseReader, type Http1Response } from '../../cli/exec/http1.js';
import { readAll } from '../../devkit/http1.js';

// The CLI's HTTP/1.1 response reader on hand-made bytes: the head limit, malformed answers, framing rules.

const head = (lines: string) => Buffer.from(`HTTP/1.1 200 OK\r\n${lines}\r\n`, 'latin1');

test('the response head may be 16 KiB and not one byte more', () => {
  const fixed = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\nx-pad: \r\n\r\n'.length;
  const at = (n: number) =>
    Buffer.from(
      `HTTP/1.1 200 OK\r\ncontent-length: 0\r\nx-pad: ${'p'.repeat(n)}\r\n\r\n`,
      'latin1',
    );
  const limit = at(MAX_HEADER_BYTES - fixed);
  assert.equal(limit.length, MAX_HEADER_BYTES);
  assert.equal(new ResponseReader().push(limit)?.status, 200);
  // The same, one byte at a time.
  const slow = new ResponseReader();
  let res: Http1Response | undefined;
  for (let i = 0; i < limit.length; i++) res = slow.push(limit.subarray(i, i + 1));
  assert.equal(res?.status, 200);
  const over = at(MAX_HEADER_BYTES - fixed + 1);
  assert.throws(() => new ResponseReader().push(over), { code: 'HPE_HEADER_OVERFLOW' });
  // Refused as soon as the limit is passed, without waiting for the end of the head.
  assert.throws(() => new ResponseReader().push(over.subarray(0, MAX_HEADER_BYTES)), {
    code: 'HPE_HEADER_OVERFLOW',
  });
  const partial = new ResponseReader();
  assert.equal(partial.push(over.subarray(0, MAX_HEADER_BYTES - 1)), undefined);
});

test('malformed responses are errors with a code, never a guessed body', () => {
  const cases: [Buffer | string, string][] = [
    ['SSH-2.0-OpenSSH\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['HTTP/2 200\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['HTTP/1.1 20 OK\r\n\r\n', 'HPE_INVALID_CONSTANT'],
    ['HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\n\r\n', 'HPE_UNEXPECTED_UPGRADE'],
    [head('content-length: 12x\r\n'), 'HPE_INVALID_CONTENT_LENGTH'],
    [head('content-length: -1\r\n'), 'HPE_INVALID_CONTENT_LENGTH'],
    [head('content-length: 3\r\ncontent-length: 4\r\n'), 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    [head('content-length: 3, 4\r\n'), 'HPE_UNEXPECTED_CONTENT_LENGTH'],
    [head('bad header\r\n'), 'HPE_INVALID_HEADER_TOKEN'],
    [head(' folded: value\r\n'), 'HPE_INVALID_HEADER_TOKEN'],
    [head('x: a\rb\r\n'), 'HPE_INVALID_HEADER_TOKEN'],
    [head('transfer-encoding: chunked, gzip\r\n'), 'HPE_INVALID_TRANSFER_ENCODING'],
    [
      Buffer.concat([head('transfer-encoding: chunked\r\n'), Buffer.from('zz\r\n')]),
      'HPE_INVALID_CHUNK_SIZE',
    ],
    [
      Buffer.concat([head('transfer-encoding: chunked\r\n'), Buffer.from('3\r\nabcX\r\n')]),
      'HPE_STRICT',
    ],
    [
      Buffer.concat([head('transfer-encoding: chunked\r\n'), Buffer.from(`${'0'.repeat(5000)}`)]),
      'HPE_INVALID_CHUNK_SIZE',
    ],
    [
      Buffer.concat([
        head('transfer-encoding: chunked\r\n'),
        Buffer.from(`0\r\nx-t: ${'t'.repeat(MAX_HEADER_BYTES)}`),
      ]),
      'HPE_HEADER_OVERFLOW',
    ],
  ];
  for (const [bytes, code] of cases) {
    assert.throws(
      () =>
        new ResponseReader().push(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'latin1')),
      { code },
      String(bytes).slice(0, 60),
    );
  }
});

test('framing: Transfer-Encoding wins over Content-Length, equal repeated lengths are one, chunk extensions and trailers are read past', () => {
  const te = readAll(
    [
      Buffer.concat([
        head('content-length: 100\r\ntransfer-encoding: chunked\r\n'),
        Buffer.from('3;ext=1\r\nabc\r\n0\r\nx-sum: 1\r\n\r\n'),
      ]),
    ],
    false,
  );
  assert.equal(te?.body.toString(), 'abc');
  assert.equal(
    readAll(
      [Buffer.concat([head('content-length: 2, 2\r\ncontent-length: 2\r\n'), Buffer.from('ok')])],
      false,
    )?.body.toString(),
    'ok',
  );
  // Another coding without chunked: the body runs to the close.
  const gz = new ResponseReader();
  assert.equal(
    gz.push(Buffer.concat([head('transfer-encoding: identity\r\n'), Buffer.from('raw')])),
    undefined,
  );
  assert.equal(gz.end().body.toString(), 'raw');
  // Bytes after the response to the one request (more than Content-Length, a body after a 204) are refused, as node:http does.
  assert.throws(
    () => readAll([Buffer.concat([head('content-length: 2\r\n'), Buffer.from('okEXTRA')])], false),
    { code: 'HPE_INVALID_CONSTANT' },
  );
  assert.throws(() => readAll([Buffer.from('HTTP/1.1 204 No Content\r\n\r\n{}')], false), {
    code: 'HPE_INVALID_CONSTANT',
  });
  // 304 and 204 have no body whatever their Content-Length says.
  assert.equal(
    readAll([Buffer.from('HTTP/1.1 304 Not Modified\r\ncontent-length: 10\r\n\r\n')], false)?.body
      .length,
    0,
  );
  // A status line without a reason phrase; HTTP/1.0.
  assert.equal(
    readAll([Buffer.from('HTTP/1.0 200\r\ncontent-length: 1\r\n\r\nx')], false)?.body.toString(),
    'x',
  );
});
