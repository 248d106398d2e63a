import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BIN, startDaemon } from '../../devkit/daemon.js';

const sh = promisify(execFile);

/**
 * `agentteam run --runtime codex-app-server` prints what the run's agents
 * say. A stand-in app server whose agent answers with terminal control
 * sequences (clipboard, title, hyperlink, erase-line, their C1 forms, a bidi
 * override) and calls a tool with such a name: the run's stdout and stderr
 * show them as escapes, and the answer's own line breaks stay.
 */
const PLANT =
  'done \x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1b[2K\r\u009b2K\u009d0;t\u009c\u202eevil\x7f\nsecond line';
const FAKE = `
const { createInterface } = require('node:readline');
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const plant = ${JSON.stringify(PLANT)};
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined) {
    send({ method: 'item/completed', params: { threadId: 'thr-P', turnId: 't1', item: { type: 'agentMessage', id: 'm1', text: plant } } });
    return send({ method: 'turn/completed', params: { threadId: 'thr-P', turn: { id: 't1', status: 'completed', error: null } } });
  }
  if (m.method === 'initialize') return send({ id: m.id, result: { userAgent: 'fake/0.171.0' } });
  if (m.method === 'thread/start') { send({ id: m.id, result: { thread: { id: 'thr-P' } } }); return send({ method: 'thread/started', params: { thread: { id: 'thr-P' } } }); }
  if (m.method === 'turn/start') {
    send({ id: m.id, result: { turn: { id: 't1' } } });
    return send({ id: 9, method: 'item/tool/call', params: { threadId: 'thr-P', turnId: 't1', callId: 'c1', namespace: 'agentteam', tool: 'x' + plant, arguments: {} } });
  }
});
rl.on('close', () => process.exit(0));
`;
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

test("an app-server run shows the agent's control sequences as escapes, on stdout and stderr", async (t) => {
  const d = await startDaemon();
  t.after(() => d.close());
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-fake-app-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = join(dir, 'codex');
  writeFileSync(fake, `#!${process.execPath}\n${FAKE}`, { mode: 0o755 });
  const r = await sh(
    process.execPath,
    [
      BIN,
      'run',
      '--agent',
      'fx',
      '--runtime',
      'codex-app-server',
      '--prompt',
      'hi',
      '--',
      fake,
      'app-server',
    ],
    {
      env: { ...process.env, AGENTTEAM_HOME: d.home, CODEX_HOME: join(dir, 'codex-home') },
      timeout: 30_000,
    },
  );
  assert.equal(RAW.exec(r.stdout), null, JSON.stringify(r.stdout));
  assert.equal(RAW.exec(r.stderr), null, JSON.stringify(r.stderr));
  assert.match(
    r.stderr,
    /agentteam: xdone \\x1b\]52;c;cHduZWQ=\\x07.*\\nsecond line from the primary thread thr-P: /,
    r.stderr,
  );
  assert.equal(
    r.stdout,
    'done \\x1b]52;c;cHduZWQ=\\x07\\x1b]0;owned\\x07\\x1b]8;;https://evil.example/\\x1b\\link\\x1b]8;;\\x1b\\\\x1b[2K\\r\\u009b2K\\u009d0;t\\u009c\\u202eevil\\x7f\nsecond line\n',
  );
});
