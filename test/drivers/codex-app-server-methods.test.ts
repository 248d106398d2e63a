import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../../devkit/daemon.js';

/**
 * A stand-in for `codex app-server` that, once the turn starts, sends server
 * requests whose methods are the names every plain object inherits, and one
 * the driver does know (an approval). It records each answer line exactly as
 * the driver wrote it, then ends the turn.
 */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];
const FAKE = `
const { createInterface } = require('node:readline');
const { writeFileSync } = require('node:fs');
const names = ${JSON.stringify(PROTOTYPE_NAMES)};
const out = { answers: {} };
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let waiting = 0;
const rl = createInterface({ input: process.stdin });
function finish() {
  send({ method: 'item/completed', params: { threadId: 'thr-P', turnId: 't1', item: { type: 'agentMessage', id: 'm1', text: 'done' } } });
  send({ method: 'turn/completed', params: { threadId: 'thr-P', turn: { id: 't1', status: 'completed', error: null } } });
}
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && typeof m.id === 'string' && m.id.startsWith('srv-')) {
    out.answers[m.id] = line;
    if (--waiting === 0) finish();
    return;
  }
  if (m.method === 'initialize') return send({ id: m.id, result: { userAgent: 'fake/0.171.0' } });
  if (m.method === 'thread/start') { send({ id: m.id, result: { thread: { id: 'thr-P' } } }); return send({ method: 'thread/started', params: { thread: { id: 'thr-P' } } }); }
  if (m.method === 'turn/start') {
    send({ id: m.id, result: { turn: { id: 't1' } } });
    send({ method: 'turn/started', params: { threadId: 'thr-P', turn: { id: 't1' } } });
    const methods = [...names, 'item/commandExecution/requestApproval', 'no/such/method'];
    waiting = methods.length;
    methods.forEach((method, i) => send({ id: 'srv-' + i + '-' + method, method, params: { threadId: 'thr-P' } }));
  }
});
rl.on('close', () => { writeFileSync(process.env.FAKE_OUT, JSON.stringify(out)); process.exit(0); });
`;

test('codex-app-server driver: server requests named like Object.prototype members get a JSON-RPC method-not-found error', async (t) => {
  const d: Daemon = await startDaemon();
  t.after(() => d.close());
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-fake-app-server-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = join(dir, 'codex');
  writeFileSync(fake, `#!${process.execPath}\n${FAKE}`, { mode: 0o755 });
  const outFile = join(dir, 'out.json');
  const r = await d.cli(
    [
      'run',
      '--server',
      'local',
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
      env: { CODEX_HOME: join(dir, 'codex-home'), FAKE_OUT: outFile },
    },
  );
  assert.equal(r.code, 0, r.stderr);
  const answers = (JSON.parse(readFileSync(outFile, 'utf8')) as { answers: Record<string, string> })
    .answers;
  const unknown = [
    ...PROTOTYPE_NAMES.map((name, i) => `srv-${i}-${name}`),
    `srv-${PROTOTYPE_NAMES.length + 1}-no/such/method`,
  ];
  for (const id of unknown) {
    const name = id.replace(/^srv-\d+-/, '');
    const line = answers[id];
    assert.ok(line, `an answer to ${name}`);
    const msg = JSON.parse(line) as Record<string, unknown>;
    assert.deepEqual(Object.keys(msg).sort(), ['error', 'id'], `${name}: ${line}`);
    assert.equal(msg.id, id);
    const error = msg.error as { code: unknown; message: unknown };
    assert.equal(error.code, -32601, `${name}: ${line}`);
    assert.equal(typeof error.message, 'string');
  }
  const approval = JSON.parse(
    answers[`srv-${PROTOTYPE_NAMES.length}-item/commandExecution/requestApproval`]!,
  ) as Record<string, unknown>;
  assert.deepEqual(
    approval.result,
    { decision: 'decline' },
    'a method the driver knows is still answered',
  );
});
