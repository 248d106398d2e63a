import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import {
  attachedThread,
  checkChildGate,
  threadGate,
  type ThreadRole,
} from '../../daemon/http/child-gate.js';
import { ExecError } from '../../daemon/errors/exec-error.js';
import type { ToolAnnotations } from '../../catalog/mcp-tool-descriptor.js';
import { ThreadBook } from '../../daemon/drivers/app-server/threads.js';

/** The gate's answer: null when the call may go on, else the error's message and hint. */
function decide(
  role: ThreadRole,
  annotations: ToolAnnotations | undefined,
  childAccess?: boolean,
): { message: string; hint: string } | null {
  try {
    threadGate('some_tool', annotations, role, childAccess);
    return null;
  } catch (err) {
    assert.ok(err instanceof ExecError);
    assert.equal(err.code, 'forbidden');
    return { message: err.message, hint: String(err.extra.hint) };
  }
}

const TOOLS: Record<string, ToolAnnotations | undefined> = {
  'read-only': { readOnlyHint: true },
  effect: { readOnlyHint: false, destructiveHint: false },
  unannotated: {},
  'unknown tool': undefined,
};

test('the delegated-child gate, thread role by inventory annotation', () => {
  const want: Record<ThreadRole, Record<string, boolean>> = {
    primary: { 'read-only': true, effect: true, unannotated: true, 'unknown tool': true },
    child: { 'read-only': true, effect: false, unannotated: false, 'unknown tool': false },
    unknown: { 'read-only': false, effect: false, unannotated: false, 'unknown tool': false },
  };
  for (const role of ['primary', 'child', 'unknown'] as const) {
    for (const [kind, annotations] of Object.entries(TOOLS)) {
      const got = decide(role, annotations);
      assert.equal(got === null, want[role][kind], `${role} thread, ${kind}`);
      if (got)
        assert.match(
          got.hint,
          /return your result to your leader/,
          `${role} thread, ${kind}: the refusal asks for the result to go to the leader`,
        );
      if (got && role === 'child')
        assert.match(got.message, /not available to a delegated child thread/);
      if (got && role === 'unknown')
        assert.match(got.message, /neither this run's primary thread nor one it spawned/);
    }
  }
  // Only an explicit true passes; a truthy non-boolean does not.
  assert.notEqual(decide('child', { readOnlyHint: 'true' as unknown as boolean }), null);
  assert.notEqual(decide('child', { readOnlyHint: 1 as unknown as boolean }), null);
});

test('a tool with its own answer for delegated threads (a client tool scope) decides instead of the hint', () => {
  assert.equal(decide('child', { readOnlyHint: false }, true), null);
  assert.notEqual(decide('child', { readOnlyHint: true }, false), null);
  assert.equal(
    decide('primary', { readOnlyHint: false }, false),
    null,
    'the primary thread is not asked',
  );
  assert.notEqual(
    decide('unknown', { readOnlyHint: true }, true),
    null,
    'an unknown thread gets nothing, whatever the tool says',
  );
});

test('claimed threads: compared with the recorded primary, or refused where the driver attaches them', () => {
  // The claimed-id form (Claude, OpenCode, generic, codex exec): no claim or the primary is the primary.
  assert.doesNotThrow(() => checkChildGate('message_send', { readOnlyHint: false }, null, 'main'));
  assert.doesNotThrow(() =>
    checkChildGate('message_send', { readOnlyHint: false }, 'main', 'main'),
  );
  assert.throws(
    () => checkChildGate('message_send', { readOnlyHint: false }, 'other', 'main'),
    /delegated child/,
  );
  assert.throws(
    () => checkChildGate('message_send', { readOnlyHint: false }, 'any', null),
    /delegated child/,
  );
  // The attached form: a claim must equal the attached thread.
  assert.equal(attachedThread(null, 'thr-1'), 'thr-1');
  assert.equal(attachedThread('thr-1', 'thr-1'), 'thr-1');
  assert.equal(attachedThread(null, null), null);
  for (const [claimed, attached] of [
    ['thr-primary', 'thr-child'],
    ['thr-1', null],
    ['', 'thr-1'],
  ] as const) {
    assert.throws(
      () => attachedThread(claimed, attached),
      (e: ExecError) =>
        e.code === 'forbidden' && /differs from the thread its driver attached/.test(e.message),
      `${claimed} vs ${attached}`,
    );
  }
});

test('the thread book learns children only from threads it already knows', () => {
  const book = new ThreadBook('P');
  assert.equal(book.role('P'), 'primary');
  assert.equal(book.role('C1'), 'unknown');
  // multi-agent v2: a subAgentActivity item in the parent thread.
  assert.deepEqual(
    book.learn('item/started', {
      threadId: 'P',
      item: { type: 'subAgentActivity', kind: 'started', agentThreadId: 'C1' },
    }),
    [{ threadId: 'C1', parentId: 'P' }],
  );
  assert.equal(book.role('C1'), 'child');
  assert.deepEqual(
    book.learn('item/completed', {
      threadId: 'P',
      item: { type: 'subAgentActivity', kind: 'started', agentThreadId: 'C1' },
    }),
    [],
    'once',
  );
  // v1: collabAgentToolCall receivers, sent by a known child (a grandchild).
  assert.deepEqual(
    book
      .learn('item/completed', {
        threadId: 'C1',
        item: {
          type: 'collabAgentToolCall',
          senderThreadId: 'C1',
          receiverThreadIds: ['G1', 'G2'],
        },
      })
      .map((t) => t.threadId),
    ['G1', 'G2'],
  );
  assert.equal(book.parentOf('G2'), 'C1');
  // thread/started naming its parent, both spellings.
  book.learn('thread/started', { thread: { id: 'C2', parentThreadId: 'P' } });
  book.learn('thread/started', {
    thread: {
      id: 'C3',
      source: { subAgent: { thread_spawn: { parent_thread_id: 'C2', depth: 2 } } },
    },
  });
  assert.equal(book.role('C3'), 'child');
  // An announcement from a thread it does not know makes nothing known.
  assert.deepEqual(
    book.learn('item/started', {
      threadId: 'X',
      item: { type: 'subAgentActivity', agentThreadId: 'X2' },
    }),
    [],
  );
  assert.deepEqual(book.learn('thread/started', { thread: { id: 'X3', parentThreadId: 'X' } }), []);
  assert.equal(book.role('X2'), 'unknown');
  // What a model writes is never read: an agent message naming threads changes nothing.
  book.learn('item/completed', {
    threadId: 'P',
    item: { type: 'agentMessage', text: 'receiverThreadIds: ["Y"]', agentThreadId: 'Y' },
  });
  assert.equal(book.role('Y'), 'unknown');
  // Busy while any known thread has a turn in progress.
  assert.equal(book.busy(), false);
  book.learn('turn/started', { threadId: 'P', turn: {} });
  book.learn('thread/status/changed', { threadId: 'C1', status: { type: 'active' } });
  book.learn('turn/completed', { threadId: 'P', turn: {} });
  assert.equal(book.busy(), true);
  book.learn('thread/status/changed', { threadId: 'C1', status: { type: 'idle' } });
  assert.equal(book.busy(), false);
  book.learn('turn/started', { threadId: 'X', turn: {} });
  assert.equal(book.busy(), false, 'an unknown thread does not keep the run open');
});
