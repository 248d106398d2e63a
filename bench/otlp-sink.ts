import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback OTLP/HTTP endpoint for the telemetry benchmark: reads each
 * export whole, answers 200 and keeps only a count of bytes, so the
 * collector's own cost stays out of the daemon's figures. Prints
 * `{"url":...}` as its one line.
 */
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`,
  );
});
