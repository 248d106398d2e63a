import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OTLP/HTTP endpoint for the telemetry benchmark: reads each
 * export whole, answers 200 and keeps only a count of bytes, so the
 * collector's own cost stays out of the daemon's figures. Prints
 * `{"url":...}` and, on SIGTERM, `{"exports":N,"bytes":N}`.
 */
let exports = 0;
let bytes = 0;
const server = createServer((req, res) => {
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ exports, bytes })}\n`);
  process.exit(0);
});
