import { createServer, request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The MCP conformance CLI cannot send an Authorization header, so it talks to
 * this loopback proxy, which forwards every request to the runtime's MCP URL
 * with the token read from the token file at that moment (so rotation is
 * followed) and the daemon's own Host. A Host or Origin the scenario sets to
 * a foreign name (the DNS-rebinding scenario) is passed on unchanged, so the
 * daemon's own check answers it.
 *
 * Usage: node conformance-proxy.js MCP_URL TOKEN_FILE PORT_FILE
 */
const [target, tokenFile, portFile] = process.argv.slice(2) as [string, string, string];
const upstream = new URL(target);
const LOCAL = /^(localhost|127\.0\.0\.1)(:\d+)?$/;

const server = createServer((req, res) => {
  const headers = {
    ...req.headers,
    authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}`,
  };
  if (LOCAL.test(req.headers.host ?? '')) headers.host = upstream.host;
  const origin = req.headers.origin;
  if (origin !== undefined && /^http:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(origin))
    headers.origin = `http://${upstream.host}`;
  const up = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: upstream.pathname,
      headers,
    },
    (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    },
  );
  up.on('error', (e) => {
    res.writeHead(502);
    res.end(String(e));
  });
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  writeFileSync(portFile, String(typeof addr === 'object' && addr ? addr.port : 0));
});
