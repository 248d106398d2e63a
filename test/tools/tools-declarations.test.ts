import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectAgent } from '../../devkit/client-tools.js';
import { alive, waitFor } from '../../devkit/wait.js';
import { prepareHome } from '../../devkit/tools.js';

/**
 * Declarations as operators meet them: bad files reported with path and JSON
 * pointer while the good ones load; placeholders stay one argv element; a
 * 5 MB output keeps head and tail and spills the whole; a hanging command
 * is killed with its whole process group and reported as `timeout`;
 * secrets in a command's output are masked; reload picks up new files.
 */
const NODE = process.execPath;
const none = { type: 'object', properties: {}, additionalProperties: false };
const cmd = (
  name: string,
  argv: string[],
  extra: Record<string, unknown> = {},
  needs: unknown = none,
) => ({
  name,
  description: `test tool ${name}`,
  needs,
  annotations: { readOnlyHint: true },
  transport: { type: 'command', argv, ...extra },
});
const text = (r: any) => (r.content as { text: string }[]).map((c) => c.text).join('');

test('bad declarations each name their file and pointer; the daemon starts with the good ones', async (t) => {
  const h = await prepareHome(t, {
    tools: {
      'a-good.json': cmd('good', [NODE, '-e', 'process.stdout.write("fine")']),
      'b-unknown-field.json': { ...cmd('unknown_field', [NODE]), colour: 'blue' },
      'c-bad-schema.json': cmd(
        'bad_schema',
        [NODE],
        {},
        { type: 'object', properties: { q: { type: 'string', frobnicate: 1 } } },
      ),
      'd-duplicate.json': cmd('good', [NODE]),
      'e-builtin-clash.json': cmd('message_send', [NODE]),
      'f-missing-program.json': cmd('missing', ['definitely-not-a-program-xyz']),
      'g-not-json.json': '{\n  "name": "broken",\n  oops\n}',
      'h-placeholder.json': cmd('ph', [NODE, '{nope}']),
    },
  });
  const dir = join(h.home, 'tools');
  const list = await h.cli(['tools', 'list']);
  assert.equal(list.code, 1);
  assert.match(list.stdout, /^good\s+declared/m);
  const expect: [string, RegExp][] = [
    ['b-unknown-field.json#/colour', /unknown field "colour"/],
    ['c-bad-schema.json#/needs/properties/q/frobnicate', /unknown keyword "frobnicate"/],
    ['d-duplicate.json#/name', /"good" is also declared by .*a-good\.json/],
    [
      'e-builtin-clash.json#/name',
      /"message_send" is already taken by the daemon's built-in tools/,
    ],
    [
      'f-missing-program.json#/transport/argv/0',
      /"definitely-not-a-program-xyz" is not an executable file/,
    ],
    ['g-not-json.json:3:', /not valid JSON/],
    ['h-placeholder.json#/transport/argv/1', /placeholder \{nope\} names no property/],
  ];
  for (const [where, msg] of expect) {
    const line = list.stderr.split('\n').find((l) => l.includes(join(dir, where)));
    assert.ok(line, `no problem reported for ${where}:\n${list.stderr}`);
    assert.match(line, msg);
  }
  // The same checks without a daemon, one file at a time.
  const one = await h.cli(['tools', 'check', join(dir, 'c-bad-schema.json')]);
  assert.equal(one.code, 1);
  assert.match(
    one.stdout,
    /c-bad-schema\.json#\/needs\/properties\/q\/frobnicate: unknown keyword/,
  );
  const all = await h.cli(['tools', 'check']);
  assert.equal(all.code, 1);
  assert.match(all.stdout, /^ok {3}.*a-good\.json \(good\)$/m);
  assert.match(
    all.stdout,
    /e-builtin-clash\.json#\/name: tool name "message_send" is already taken/,
  );
  const good = await h.cli(['tools', 'check', join(dir, 'a-good.json')]);
  assert.equal(good.code, 0, good.stdout);
  const schema = await h.cli(['tools', '--schema']);
  assert.equal(JSON.parse(schema.stdout).properties.transport.oneOf.length, 2);
});

test('command tools, one daemon', async (t) => {
  const tmp = (await import('node:os')).tmpdir();
  const hangPids = join(tmp, `agentteam-hang-${process.pid}-${Date.now()}.json`);
  const escapePids = join(tmp, `agentteam-escape-${process.pid}-${Date.now()}.json`);
  t.after(() => {
    for (const f of [hangPids, escapePids]) {
      try {
        for (const pid of Object.values(JSON.parse(readFileSync(f, 'utf8')) as number[]))
          process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as they should be
      }
      rmSync(f, { force: true });
    }
  });
  const echoScript =
    'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify({argv:process.argv.slice(1),stdin:JSON.parse(s)})))';
  const echoNeeds = {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string' }, n: { type: 'integer' }, opt: { type: 'string' } },
  };
  const total = 5 * 1024 * 1024;
  const bigScript = `const b=Buffer.alloc(${total},"m");b.write("HEAD-START");b.write("TAIL-END",${total}-8);process.stdout.write(b)`;
  const hangScript = `const c=require("child_process").spawn(process.execPath,["-e","setInterval(()=>{},1000)"],{stdio:"ignore"});require("fs").writeFileSync(${JSON.stringify(hangPids)},JSON.stringify({self:process.pid,child:c.pid}));setInterval(()=>{},1000)`;
  // The grandchild starts its own session (detached) but inherits stdout: it holds the pipe.
  const escapeScript = `const c=require("child_process").spawn(process.execPath,["-e","setTimeout(()=>{},30000)"],{detached:true,stdio:["ignore","inherit","inherit"]});c.unref();require("fs").writeFileSync(${JSON.stringify(escapePids)},JSON.stringify({child:c.pid}));process.stdout.write("done")`;
  const h = await prepareHome(t, {
    env: { SERVICE_TOKEN: 'correct-horse-battery' },
    tools: {
      'echo.json': cmd(
        'echo_args',
        [NODE, '-e', echoScript, '{text}', 'x{n}y', '{opt}', '{{literal}}'],
        {},
        echoNeeds,
      ),
      'big.json': cmd('big', [NODE, '-e', bigScript], { outputBytes: 8192 }),
      'hang.json': cmd('hang', [NODE, '-e', hangScript], { timeoutMs: 700 }),
      'escape.json': cmd('escape', [NODE, '-e', escapeScript], { timeoutMs: 20000 }),
      'leak.json': cmd(
        'leak',
        [
          NODE,
          '-e',
          'const v=process.env.SERVICE_TOKEN;process.stdout.write(JSON.stringify({said:"said "+v,shown:"shown "+v}))',
        ],
        { env: ['SERVICE_TOKEN'] },
      ),
      'fail.json': cmd(
        'fail',
        [NODE, '-e', 'console.error("boom with "+process.env.SERVICE_TOKEN);process.exit(3)'],
        { env: ['SERVICE_TOKEN'] },
      ),
    },
  });
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());

  await t.test(
    'placeholders stay one argv element each; the call arrives as JSON on stdin; no shell',
    async () => {
      const hostile = 'a b; rm -rf / $(id) `x` "q" \n next';
      const r = await agent.client.callTool({
        name: 'echo_args',
        arguments: { text: hostile, n: 5 },
      });
      assert.equal(r.isError, false, text(r));
      const got = JSON.parse(text(r));
      assert.deepEqual(got.argv, [hostile, 'x5y', '{literal}']);
      assert.deepEqual(got.stdin, { text: hostile, n: 5 });
      const bad = await agent.client.callTool({ name: 'echo_args', arguments: { n: 'five' } });
      assert.equal(bad.isError, true);
      assert.match(text(bad), /validation_failed/);
      // The same details as Exec: the missing field at its own path.
      assert.match(text(bad), /"path":"\/text","message":"is required"/);
    },
  );

  await t.test(
    'a 5 MB output keeps head and tail within the limit; the spill file (0600) holds all of it and the note names it',
    async () => {
      const r = await agent.client.callTool({ name: 'big', arguments: {} });
      assert.equal(r.isError, false);
      const said = text(r);
      assert.ok(Buffer.byteLength(said) <= 8192, `${Buffer.byteLength(said)} bytes`);
      assert.ok(said.startsWith('HEAD-START'));
      assert.ok(said.endsWith('TAIL-END'));
      const m = /bytes dropped from the middle; the whole output is in (\S+\/spill\/\S+\.txt)/.exec(
        said,
      );
      assert.ok(m, said.slice(4000, 4300));
      assert.ok(m[1]!.startsWith(join(h.home, 'spill')));
      const st = statSync(m[1]!);
      assert.equal(st.size, total);
      assert.equal(st.mode & 0o777, 0o600);
      const spilled = readFileSync(m[1]!, 'utf8');
      assert.ok(spilled.startsWith('HEAD-START') && spilled.endsWith('TAIL-END'));
    },
  );

  await t.test(
    'a command that hangs is killed at its timeout with its whole process group and reported as timeout',
    async () => {
      const started = Date.now();
      const r = await agent.client.callTool({ name: 'hang', arguments: {} });
      assert.equal(r.isError, true);
      assert.match(text(r), /"code":"timeout"/);
      assert.match(text(r), /did not finish within 700 ms; its process group was killed/);
      assert.ok(Date.now() - started < 5000);
      const { self, child } = JSON.parse(readFileSync(hangPids, 'utf8')) as {
        self: number;
        child: number;
      };
      assert.ok(
        await waitFor(() => !alive(self) && !alive(child), 3000),
        'the command and its child are gone',
      );
    },
  );

  await t.test(
    'a process that leaves the group and keeps the pipes open does not hold the call',
    async () => {
      const started = Date.now();
      const r = await agent.client.callTool({ name: 'escape', arguments: {} });
      assert.equal(text(r), 'done');
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    },
  );

  await t.test(
    'secrets in output and shown text are masked; a failing command reports its status and stderr tail',
    async () => {
      const r = await agent.client.callTool({ name: 'leak', arguments: {} });
      assert.equal(text(r), 'said [SERVICE_TOKEN]');
      const log = await h.cli(['tools', 'log', '--json']);
      assert.ok(!log.stdout.includes('correct-horse-battery'));
      assert.match(log.stdout, /shown \[SERVICE_TOKEN\]/);
      const f = await agent.client.callTool({ name: 'fail', arguments: {} });
      assert.equal(f.isError, true);
      assert.match(text(f), /fail exited with status 3; stderr ends: boom with \[SERVICE_TOKEN\]/);
    },
  );
});

test('reload picks up new declarations; a delegated child may call only read-only ones; denyTools hides them', async (t) => {
  const h = await prepareHome(t, {
    tools: { 'ro.json': cmd('ro_tool', [NODE, '-e', 'process.stdout.write("ro")']) },
    profile: { agents: [{ id: 'a2', denyTools: ['ro_tool'] }] },
  });
  writeFileSync(
    join(h.home, 'tools', 'rw.json'),
    JSON.stringify({
      ...cmd('rw_tool', [NODE, '-e', 'process.stdout.write("rw")']),
      annotations: { readOnlyHint: false },
    }),
  );
  const reload = await h.cli(['daemon', 'reload']);
  assert.equal(reload.code, 0, reload.stderr);
  assert.deepEqual(
    JSON.parse(reload.stdout).data.tools.loaded.map((d: { name: string }) => d.name),
    ['ro_tool', 'rw_tool'],
  );
  const agent = await connectAgent(h as never, 'a1', { primaryThreadId: 'main' });
  t.after(() => agent.close());
  const names = (await agent.client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes('ro_tool') && names.includes('rw_tool'));
  const child = { _meta: { 'agentteam/threadId': 'sub-1' } };
  const ro = await agent.client.callTool({ name: 'ro_tool', arguments: {}, ...child });
  assert.equal(text(ro), 'ro');
  const rw = await agent.client.callTool({ name: 'rw_tool', arguments: {}, ...child });
  assert.equal(rw.isError, true);
  assert.match(text(rw), /not available to a delegated child thread/);
  const denied = await connectAgent(h as never, 'a2');
  t.after(() => denied.close());
  assert.ok(!(await denied.client.listTools()).tools.some((x) => x.name === 'ro_tool'));
  await assert.rejects(denied.client.callTool({ name: 'ro_tool', arguments: {} }), /Unknown tool/);
});
