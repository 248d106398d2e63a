import { test, type TestContext } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { BIN } from '../../devkit/daemon.js';
import { connectAgent } from '../../devkit/client-tools.js';
import { prepareHome, type Home } from '../../devkit/tools.js';
import { waitFor } from '../../devkit/wait.js';

/**
 * Agents plant terminal control sequences and a newline in every field an
 * operator reads back: a task title and an approval title through `agentteam
 * run` + `agentteam exec`, the topic of the shipped name_branch tool (its
 * shown text and question), and a tool name that tries to forge an audit
 * line for another agent. Every operator printer then shows them inert:
 * no raw ESC, DEL, C1 or bidi control on stdout, no line that starts with
 * the forged record, and JSON that parses back to exactly what was planted.
 */
const FORGED = '2031-01-01T00:00:00.000Z local/victim FORGED';
const PLANT = [
  'topic ',
  '\x1b]52;c;cHduZWQ=\x07', // clipboard write (OSC 52)
  '\x1b]0;owned\x07', // window title (OSC 0)
  '\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\', // hyperlink (OSC 8)
  '\x1b[2K\r', // erase the line (CSI K)
  '\u009b2K\u009d2;c1title\u009c', // the same as C1 controls
  '\u202eevil\u202c\u2066x\u2069\x7f', // bidi override, isolate, DEL
  `\n${FORGED} ok`,
].join('');
const TOOL = `task/get\n${FORGED}\x1b[2K\u009b2K`;
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** No raw control on stdout but line feeds, and no line that passes for the forged record. */
function inert(what: string, out: string): void {
  const raw = RAW.exec(out);
  assert.equal(
    raw,
    null,
    `${what}: raw U+${raw?.[0]?.charCodeAt(0).toString(16).padStart(4, '0')} in ${JSON.stringify(out)}`,
  );
  for (const line of out.split('\n'))
    assert.ok(
      !line.startsWith(FORGED.slice(0, 10)),
      `${what}: forged line ${JSON.stringify(line)}`,
    );
}

/** A CLI process that keeps printing (`--follow`), killed after the test. */
function follow(t: TestContext, h: Home, args: string[]): { out: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: h.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  return { out: () => out };
}

/** `agentteam exec` run by an agent under `agentteam run`; its JSON envelope. */
async function agentExec(h: Home, domain: string, action: string, input: unknown): Promise<any> {
  const r = await h.cli([
    'run',
    '--agent',
    'a1',
    '--',
    process.execPath,
    BIN,
    'exec',
    domain,
    action,
    JSON.stringify(input),
  ]);
  assert.equal(r.code, 0, r.stderr);
  inert(`exec ${domain} ${action}`, r.stdout);
  return JSON.parse(r.stdout);
}

test('control sequences and newlines planted by agents reach operators inert', async (t) => {
  const h = await prepareHome(t, { examples: true });
  const logs = follow(t, h, ['daemon', 'logs', '--follow']);
  // The recent lines are printed once the event stream is open: from then on no event is missed.
  assert.ok(await waitFor(() => logs.out().length > 0, 10_000), 'daemon logs --follow started');
  const agent = await connectAgent(h as never, 'a1');
  t.after(() => agent.close());

  const task = (await agentExec(h, 'task', 'create', { title: PLANT })).data.task;
  assert.equal(task.title, PLANT, 'exec prints the title exactly, escaped');
  const approval = (await agentExec(h, 'approval', 'request', { title: PLANT, detail: PLANT })).data
    .approval;
  const asked = await agent.client.callTool({ name: 'name_branch', arguments: { topic: PLANT } });
  assert.equal(asked.isError, false);
  const forged = await agent.client
    .callTool({ name: TOOL, arguments: {} })
    .catch((err: Error) => err);
  assert.ok(forged, 'the call with a forged name was made');

  // The audit rows are written in batches: wait for the forged one.
  const rows = async () =>
    (JSON.parse((await h.cli(['audit', '--json', '--limit', '100'])).stdout).data?.entries ??
      []) as { tool: string }[];
  assert.ok(
    await waitFor(async () => (await rows()).some((e) => e.tool === TOOL), 10_000),
    'the forged tool name was recorded as sent',
  );

  await t.test('audit, one line per call', async () => {
    const r = await h.cli(['audit']);
    assert.equal(r.code, 0, r.stderr);
    inert('audit', r.stdout);
    assert.ok(
      r.stdout.includes('task/get\\n2031-01-01T00:00:00.000Z local/victim FORGED\\x1b[2K\\u009b2K'),
      r.stdout,
    );
  });

  await t.test('audit --json and audit --follow', async () => {
    const r = await h.cli(['audit', '--json']);
    inert('audit --json', r.stdout);
    assert.ok(JSON.parse(r.stdout).data.entries.some((e: { tool: string }) => e.tool === TOOL));
    const human = follow(t, h, ['audit', '--follow']);
    const json = follow(t, h, ['audit', '--follow', '--json']);
    assert.ok(
      await waitFor(() => human.out().includes('FORGED') && json.out().includes('FORGED'), 10_000),
      'both follows printed the row',
    );
    inert('audit --follow', human.out());
    inert('audit --follow --json', json.out());
    const lines = json
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string });
    assert.ok(lines.some((e) => e.tool === TOOL));
  });

  await t.test('audit --summary', async () => {
    for (const args of [
      ['audit', '--summary'],
      ['audit', '--summary', '--json'],
    ]) {
      const r = await h.cli(args);
      assert.equal(r.code, 0, r.stderr);
      inert(args.join(' '), r.stdout);
    }
    const s = JSON.parse((await h.cli(['audit', '--summary', '--json'])).stdout).data;
    assert.ok(s.byTool.some((x: { key: string }) => x.key === TOOL));
  });

  await t.test('tools log: the shown text, the question and the waiting line', async () => {
    const r = await h.cli(['tools', 'log']);
    assert.equal(r.code, 0, r.stderr);
    inert('tools log', r.stdout);
    assert.match(r.stdout, /\\x1b\]52;c;cHduZWQ=\\x07/);
    const j = await h.cli(['tools', 'log', '--json']);
    inert('tools log --json', j.stdout);
    assert.ok(
      JSON.parse(j.stdout).data.pending.some((p: { question: string }) =>
        p.question.includes(PLANT),
      ),
    );
  });

  await t.test(
    'task list, approval list and approval get print the JSON the agent planted, escaped',
    async () => {
      const list = await h.cli(['task', 'list']);
      inert('task list', list.stdout);
      assert.equal(
        JSON.parse(list.stdout).data.tasks.find((x: { id: string }) => x.id === task.id).title,
        PLANT,
      );
      const approvals = await h.cli(['approval', 'list']);
      inert('approval list', approvals.stdout);
      assert.ok(
        JSON.parse(approvals.stdout).data.approvals.some(
          (a: { title: string }) => a.title === PLANT,
        ),
      );
      const one = await h.cli(['approval', 'get', approval.id]);
      inert('approval get', one.stdout);
      assert.equal(JSON.parse(one.stdout).data.approval.detail, PLANT);
    },
  );

  await t.test(
    'daemon logs --follow: the operator events carry the planted text, escaped',
    async () => {
      assert.ok(await waitFor(() => logs.out().includes('tool.asked'), 10_000), logs.out());
      inert('daemon logs --follow', logs.out());
      const events = logs
        .out()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { event?: string; data?: { text?: string } });
      assert.ok(events.some((e) => e.event === 'tool.shown' && e.data?.text?.includes(PLANT)));
    },
  );
});
