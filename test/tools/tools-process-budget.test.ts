import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAgent } from '../../devkit/client-tools.js';
import { alive, waitFor } from '../../devkit/wait.js';
import { prepareHome } from '../../devkit/tools.js';
import { MAX_CAPTURE_BYTES } from '../../daemon/tools/command.js';
import { OutputBudget } from '../../daemon/tools/output-budget.js';
import { scale } from '../../devkit/scale.js';

/**
 * Declared commands as a hostile or careless tool author writes them: one
 * that escapes its process group and session (`setsid`, a double fork) and
 * one that prints the most it may, many times at once.
 */
const NODE = process.execPath;
const none = { type: 'object', properties: {}, additionalProperties: false };
const cmd = (name: string, argv: string[], extra: Record<string, unknown> = {}) => ({
  name,
  description: `test tool ${name}`,
  needs: none,
  annotations: { readOnlyHint: true },
  transport: { type: 'command', argv, ...extra },
});
const text = (r: any) => (r.content as { text: string }[]).map((c) => c.text).join('');

/** Peak and current resident memory of a process (kB from /proc, as bytes). */
function memoryOf(pid: number): { hwm: number; rss: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) =>
    Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN) * 1024;
  return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
}

test('nothing a declared command starts outlives its call: setsid and a double fork are killed at the timeout', async (t) => {
  if (spawnSync('setsid', ['--version']).error)
    return t.skip('setsid (util-linux) is not installed');
  const pids = join(tmpdir(), `agentteam-escapees-${process.pid}-${Date.now()}`);
  t.after(() => {
    try {
      for (const line of readFileSync(pids, 'utf8').split('\n').filter(Boolean)) {
        try {
          process.kill(Number(line), 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    } catch {
      // no file
    }
    rmSync(pids, { force: true });
  });
  const P = JSON.stringify(pids);
  // 1. `setsid` (new session and group) whose shell backgrounds a sleep, all stdio closed: a daemonized helper.
  // 2. A double fork: a detached child starts a detached grandchild and exits, so init adopts the grandchild.
  // Then the command itself hangs until its timeout.
  const script = [
    'const cp=require("child_process"),fs=require("fs");',
    `cp.spawn("setsid",["sh","-c","sleep 300 & echo $! >> "+${P}+"; echo $$ >> "+${P}+"; exec sleep 300"],{stdio:"ignore"}).unref();`,
    `const mid=cp.spawn(process.execPath,["-e",${JSON.stringify(`const g=require("child_process").spawn(process.execPath,["-e","setInterval(()=>{},1000)"],{detached:true,stdio:"ignore"});require("fs").appendFileSync(${P},g.pid+"\\n");process.exit(0)`)}],{detached:true,stdio:"ignore"});`,
    `fs.appendFileSync(${P},mid.pid+"\\n"+process.pid+"\\n");`,
    'setInterval(()=>{},1000);',
  ].join('');
  const h = await prepareHome(t, {
    tools: { 'escape.json': cmd('escapees', [NODE, '-e', script], { timeoutMs: 1500 }) },
  });
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());

  const r = await agent.client.callTool({ name: 'escapees', arguments: {} });
  assert.equal(r.isError, true);
  assert.match(text(r), /"code":"timeout"/);
  const all = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
  assert.equal(
    all.length,
    5,
    `setsid shell, its sleep, the double-fork child and grandchild, the command: ${all}`,
  );
  // The call is answered only after the sweep; a killed orphan may need a moment to be reaped by init.
  const living = () => all.filter((p) => alive(p));
  assert.ok(
    await waitFor(() => living().length === 0, 1000),
    `still alive after the timeout: ${living()}`,
  );
});

/**
 * How many at once: 14 in `npm test` (896 MiB of output, past the 768 MiB
 * the daemon must stay under and 14 times the daemon-wide budget), 32 at
 * soak scale (devkit/scale.ts).
 */
const MAXIMAL = scale(14, 32);

test(`${MAXIMAL} concurrent maximal outputs: the daemon-wide output budget holds the daemon RSS under 768 MiB`, {
  timeout: 600_000,
}, async (t) => {
  if (spawnSync('head', ['--version']).error || spawnSync('yes', ['--version']).error)
    return t.skip('coreutils head/yes are not installed');
  // Held at once, the outputs would take the daemon past its limit: only the budget keeps it under.
  assert.ok(MAXIMAL * MAX_CAPTURE_BYTES > 768 * 2 ** 20, `${MAXIMAL} outputs exceed 768 MiB`);
  // Exactly the per-call maximum: each call alone would be accepted.
  const argv = [
    'sh',
    '-c',
    `yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c ${MAX_CAPTURE_BYTES}`,
  ];
  const h = await prepareHome(t, {
    tools: { 'max.json': cmd('max_out', argv, { timeoutMs: 600_000 }) },
  });
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());
  const before = memoryOf(h.pid);
  const started = Date.now();
  const results = await Promise.all(
    Array.from({ length: MAXIMAL }, () =>
      agent.client.callTool({ name: 'max_out', arguments: {} }, undefined, { timeout: 600_000 }),
    ),
  );
  const after = memoryOf(h.pid);
  const failed = results.filter((r) => r.isError).map((r) => text(r).slice(0, 300));
  t.diagnostic(
    `${MAXIMAL} maximal outputs answered in ${Date.now() - started} ms; daemon RSS before ${(before.rss / 2 ** 20).toFixed(0)} MiB, peak ${(after.hwm / 2 ** 20).toFixed(0)} MiB`,
  );
  assert.deepEqual(
    failed,
    [],
    'past the budget a call waits for room (its command blocks on the pipe); none fails',
  );
  for (const r of results)
    assert.match(
      text(r),
      /bytes dropped from the middle/,
      'each got its whole output (head, tail, spill)',
    );
  assert.ok(after.hwm < 768 * 2 ** 20, `peak RSS ${(after.hwm / 2 ** 20).toFixed(0)} MiB`);
  // Nothing stays held: a call after the burst still gets its whole output through.
  const again = await agent.client.callTool({ name: 'max_out', arguments: {} }, undefined, {
    timeout: 120_000,
  });
  assert.equal(again.isError, false, text(again).slice(0, 300));
});

test('the output budget: past it only the oldest call reads on; the others resume when room comes back', () => {
  const b = new OutputBudget(100);
  const a = b.join();
  const c = b.join();
  assert.equal(a.take(80), true);
  assert.equal(c.take(20), true, 'at the budget exactly');
  assert.equal(c.take(1), false, 'one byte past it: the younger call stops reading');
  assert.equal(a.take(50), true, 'the oldest always reads on');
  let resumed = 0;
  c.whenRoom(() => resumed++);
  assert.equal(resumed, 0);
  a.leave();
  assert.equal(resumed, 1, 'room came back (and c is now the oldest)');
  assert.equal(b.inUse, 21);
  a.leave();
  assert.equal(b.inUse, 21, 'leaving twice gives back nothing more');
  c.leave();
  assert.equal(b.inUse, 0);
  assert.equal(b.peak, 151);
});
