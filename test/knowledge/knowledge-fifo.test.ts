import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { startDaemon, startRuntime } from '../../devkit/daemon.js';
import { callTool } from '../../devkit/knowledge.js';

/**
 * A runtime controls its own memory folder (and whoever can write kb/ controls
 * that): it can swap a file it wrote for a named pipe at any moment, also in
 * the instant between the daemon's link check and its open. Opening a pipe
 * for reading waits for a writer, so an open that can wait, made on the event
 * loop, freezes the whole daemon. These tests race a swapper against the
 * daemon's reads and require every call, of every caller, to be answered.
 */

// Swaps `name` between a regular file and a named pipe as fast as it can (hard links of two fixed inodes).
const SWAPPER = `
const fs = require('node:fs'), path = require('node:path');
const dirs = JSON.parse(process.argv[1]);
for (;;) for (const d of dirs) {
  try { fs.linkSync(path.join(d, '.reg'), path.join(d, '.t')); fs.renameSync(path.join(d, '.t'), path.join(d, 'doc.md')); } catch {}
  try { fs.linkSync(path.join(d, '.fifo'), path.join(d, '.t')); fs.renameSync(path.join(d, '.t'), path.join(d, 'doc.md')); } catch {}
}`;

const DOC = '# Swapped\n\nThe regular version of this document mentions a walrus.\n';

function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer!: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`${what}: no answer within ${ms} ms (the daemon is frozen)`)),
          ms,
        )),
    ),
  ]).finally(() => clearTimeout(timer));
}

/** Opening a pipe for writing releases a reader blocked on it (so an old daemon can be stopped). */
function releaseReaders(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader waits
  }
}

test('named pipes under memory/ and kb/ never freeze the daemon', async (t) => {
  if (spawnSync('mkfifo', ['--version']).error) return t.skip('mkfifo is not installed');
  const d = await startDaemon();
  const kb = join(d.home, 'kb');
  const mem = join(d.home, 'memory', 'f1');
  const dirs = [kb, mem];
  for (const dir of dirs) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, '.reg'), DOC);
    writeFileSync(join(dir, 'doc.md'), DOC);
    assert.equal(spawnSync('mkfifo', [join(dir, '.fifo')]).status, 0);
  }
  let swapper: ReturnType<typeof spawn> | null = null;
  const stopSwapper = () => {
    swapper?.kill('SIGKILL');
    swapper = null;
  };
  t.after(async () => {
    stopSwapper();
    for (const dir of dirs) releaseReaders(join(dir, '.fifo'));
    await d.close();
  });

  const post = await d.cli([
    'message',
    'post',
    '--target',
    'channel:general',
    '--as',
    'human:ada',
    'Where is the walrus?',
  ]);
  assert.equal(post.code, 0, post.stderr);
  const messageId = (JSON.parse(post.stdout) as { data: { message: { id: string } } }).data.message
    .id;
  const rt = await startRuntime(d, {
    server: 'local',
    agent: 'f1',
    runArgs: ['--turn-target', 'channel:general', '--turn-message', messageId],
  });
  t.after(() => rt.close());
  const other = await startRuntime(d, { server: 'local', agent: 'f2' });
  t.after(() => other.close());

  // Both indexes are built before the race starts, so every later read is a swap candidate.
  for (let i = 0; i < 50; i++) {
    const r = await callTool(rt.mcpUrl, rt.token(), 'memory_search', { query: 'walrus' });
    if (!r.isError) break;
    await new Promise((res) => setTimeout(res, 100));
  }

  await t.test(
    'a file swapped for a pipe between check and open: 400 calls, every one answered',
    async () => {
      swapper = spawn(process.execPath, ['-e', SWAPPER, JSON.stringify(dirs)], { stdio: 'ignore' });
      const outcomes = { text: 0, refused: 0 };
      for (let i = 0; i < 400; i++) {
        const f = await within(
          5_000,
          callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: 'doc.md' }),
          `kb_fetch #${i}`,
        );
        if (f.isError) {
          assert.equal((f.data as { code: string }).code, 'not_found', JSON.stringify(f.data));
          outcomes.refused++;
        } else {
          assert.equal((f.data as { text: string }).text, DOC);
          outcomes.text++;
        }
        if (i % 4 === 0) {
          const s = await within(
            5_000,
            callTool(rt.mcpUrl, rt.token(), 'memory_search', { query: 'walrus' }),
            `memory_search #${i}`,
          );
          if (s.isError)
            assert.equal(
              (s.data as { code: string }).code,
              'index_unavailable',
              JSON.stringify(s.data),
            );
        }
      }
      // Another caller is served too (not only the one racing its own folder).
      const listed = await within(
        5_000,
        callTool(other.mcpUrl, other.token(), 'memory_search', { query: 'anything' }),
        'another runtime',
      );
      assert.ok(listed, 'answered');
      assert.ok(outcomes.text + outcomes.refused === 400, JSON.stringify(outcomes));
      stopSwapper();
    },
  );

  await t.test('a pipe planted under the real name is refused at once as not found', async () => {
    for (const dir of dirs) {
      rmSync(join(dir, 'doc.md'), { force: true });
      renameSync(join(dir, '.fifo'), join(dir, 'doc.md'));
    }
    const f = await within(
      5_000,
      callTool(rt.mcpUrl, rt.token(), 'kb_fetch', { docId: 'doc.md' }),
      'kb_fetch of a pipe',
    );
    assert.equal(f.isError, true);
    assert.equal((f.data as { code: string }).code, 'not_found');
    await new Promise((res) => setTimeout(res, 300)); // the memory watcher flushes the change
    const s = await within(
      5_000,
      callTool(rt.mcpUrl, rt.token(), 'memory_search', { query: 'walrus' }),
      'memory_search over a pipe',
    );
    assert.equal(s.isError, false, JSON.stringify(s.data));
    assert.deepEqual(
      (s.data as { hits: unknown[] }).hits,
      [],
      'the pipe is not indexed, and the old file is gone from the index',
    );
    for (const dir of dirs) renameSync(join(dir, 'doc.md'), join(dir, '.fifo'));
  });
});
