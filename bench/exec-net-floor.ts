import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/**
 * The floor of `agentteam exec task get` as a whole process: the least a Node
 * program can do for the same exchange. It reads the token file, opens one
 * connection with `node:net`, writes the same HTTP/1.1 request the CLI sends
 * (`cli/exec/request.ts`), reads the answer to its end and prints the body.
 * No validation, no envelope checks, no error handling beyond the exit
 * status: what is left between it and the CLI is the CLI's own work.
 * Usage: node exec-net-floor.js DOMAIN ACTION JSON (in a runtime's environment).
 */
const [domain, action, body = '{}'] = process.argv.slice(2);
const base = new URL(`${process.env.AGENTTEAM_EXEC_BASE_URL}/${domain}/${action}`);
const token = readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE as string, 'utf8').trim();
const payload = Buffer.from(body);
const socket = connect(Number(base.port), base.hostname);
socket.write(
  `POST ${base.pathname} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`,
);
socket.write(payload);
const chunks: Buffer[] = [];
socket.on('data', (c: Buffer) => chunks.push(c));
socket.on('end', () => {
  const raw = Buffer.concat(chunks).toString('utf8');
  const split = raw.indexOf('\r\n\r\n');
  process.exitCode = /^HTTP\/1\.1 200 /.test(raw) ? 0 : 1;
  process.stdout.write(raw.slice(split + 4));
});
