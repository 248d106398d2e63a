import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, startRuntime, type SpawnedDaemon } from '../../devkit/daemon.js';
import { callTool } from '../../devkit/knowledge.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../devkit/otlp-receiver.js';
import { answerRuntime, post, waitTurn } from '../../devkit/turns.js';

/**
 * What a delivered turn leaves for the operator: every audit row of a call
 * its runtime made names the turn (`agentteam audit --turn`), and with
 * tracing on the turn is the root span of its calls' trace.
 */

let d: SpawnedDaemon;
let receiver: OtlpReceiver;

interface Row {
  tool: string;
  agentId: string;
  turnId: string | null;
  traceId: string | null;
}

before(async () => {
  receiver = await startOtlpReceiver();
  const home = mkdtempSync(join(tmpdir(), 'agentteam-turn-trail-'));
  const work = join(home, 'work');
  mkdirSync(work);
  writeFileSync(
    join(home, 'profile.json'),
    JSON.stringify({
      agents: [
        {
          id: 'a1',
          runtime: 'generic',
          filesystem: { allowedPaths: [work] },
          launch: { command: answerRuntime() },
        },
        { id: 'a2', runtime: 'generic' },
      ],
    }),
  );
  d = await startDaemon({
    home,
    env: {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${randomBytes(8).toString('hex')}`,
    },
  });
});
after(async () => {
  await d?.close();
  await receiver?.close();
});

/** Polls `get` until it answers something (10 s at most). */
async function until<T>(get: () => T | null | Promise<T | null>): Promise<T> {
  for (const end = Date.now() + 10_000; ; ) {
    const v = await get();
    if (v !== null) return v;
    if (Date.now() > end)
      assert.fail(
        `waited 10 s in vain; spans: ${receiver.spans.map((s) => `${s.name}:${s.traceId.slice(0, 6)}:${s.parentSpanId ?? ''}:${JSON.stringify(s.attributes)}`).join(' ')}`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function audit(args: string[]): Promise<Row[]> {
  const r = await d.cli(['audit', '--json', '--limit', '100', ...args]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return JSON.parse(r.stdout).data.entries as Row[];
}

test("a turn's calls carry its id in the audit trail, and only they are listed by it", async () => {
  // A call outside any turn, by a runtime a person launched.
  const rt = await startRuntime(d, { server: 'local', agent: 'a2' });
  try {
    const out = await callTool(rt.mcpUrl, rt.token(), 'message_send', {
      target: 'dm:a2',
      content: 'outside a turn',
    });
    assert.equal(out.isError, false);
  } finally {
    await rt.close();
  }
  const { turns } = await post(d, 'dm:a1', 'Say hello');
  const turn = await waitTurn(d, turns[0]!.turnId);
  assert.equal(turn.state, 'succeeded');
  const rows = await until(async () => {
    const r = await audit(['--turn', turn.id]);
    return r.length > 0 ? r : null;
  });
  assert.deepEqual(
    rows.map((r) => [r.tool, r.agentId, r.turnId]),
    [['message_send', 'a1', turn.id]],
  );
  const all = await until(async () => {
    const r = await audit([]);
    return r.some((x) => x.agentId === 'a2') ? r : null;
  });
  assert.equal(all.find((r) => r.agentId === 'a2')!.turnId, null);
  // The filter is checked like the others.
  const bad = await d.cli(['audit', '--turn', 'not a turn']);
  assert.notEqual(bad.code, 0);
  const summary = await d.cli(['audit', '--summary', '--turn', turn.id]);
  assert.notEqual(summary.code, 0, 'the summary is not kept per turn');

  // The turn is the root span; the runtime sent no trace context, and its call is the turn's child.
  const span = await until(
    () =>
      receiver.spans.find(
        (s) => s.name === 'turn' && s.attributes['agentteam.turn.id'] === turn.id,
      ) ?? null,
  );
  assert.equal(span.parentSpanId ?? '', '');
  assert.equal(span.attributes['agentteam.turn.state'], 'succeeded');
  const call = await until(
    () =>
      receiver.spans.find(
        (s) =>
          s.name === 'tools/call message_send' &&
          s.traceId === span.traceId &&
          s.parentSpanId === span.spanId,
      ) ?? null,
  );
  assert.equal(call.attributes['agentteam.agent_id'], 'a1');
  // The audit row names the same trace.
  assert.equal(rows[0]!.traceId, span.traceId);
});
