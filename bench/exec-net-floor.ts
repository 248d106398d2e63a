/**
 * The floor of `agentteam exec task get` as a whole process: the least a Node
 * program can do for the same exchange. It reads the token file, opens one
 * connection with `node:net`, writes the same HTTP/1.1 request the CLI sends
 * (`cli/exec/request.ts`), reads the answer to its end and prints the body.
 * No validation, no envelope checks, no error handling beyond the exit
 * status: what is left between it and the CLI is the CLI's own work. It runs
 * as `node -e SOURCE DOMAIN ACTION JSON` in a runtime's environment:
 * CommonJS, as the CLI's bundle is, so neither pays the ES module loader the
 * other does not.
 */
export const NET_FLOOR_SOURCE = `
const { readFileSync } = require('node:fs');
const { connect } = require('node:net');
const [domain, action, body = '{}'] = process.argv.slice(1);
const base = new URL(process.env.AGENTTEAM_EXEC_BASE_URL + '/' + domain + '/' + action);
const token = readFileSync(process.env.AGENTTEAM_EXEC_TOKEN_FILE, 'utf8').trim();
const payload = Buffer.from(body);
const socket = connect(Number(base.port), base.hostname);
socket.write('POST ' + base.pathname + ' HTTP/1.1\\r\\nHost: ' + base.host + '\\r\\nAuthorization: Bearer ' + token +
  '\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + payload.length + '\\r\\nConnection: close\\r\\n\\r\\n');
socket.write(payload);
const chunks = [];
socket.on('data', (c) => chunks.push(c));
socket.on('end', () => {
  const raw = Buffer.concat(chunks).toString('utf8');
  process.exitCode = /^HTTP\\/1\\.1 200 /.test(raw) ? 0 : 1;
  process.stdout.write(raw.slice(raw.indexOf('\\r\\n\\r\\n') + 4));
});
`;
