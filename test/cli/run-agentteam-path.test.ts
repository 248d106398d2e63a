import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEnv, startDaemonCli, tempHome } from '../../devkit/daemon.js';
import { RUNTIME_KINDS } from '../../catalog/runtimes.js';

/**
 * An agent calls `agentteam exec ...` from its shell. The daemon gives every
 * runtime its own `agentteam` (a launcher of the CLI bundle the daemon runs
 * from, with the daemon's Node) first on PATH and names its absolute path in
 * the guidance, so this works on a machine where `agentteam` was never
 * installed or linked. Checked through each driver with a PATH that holds
 * only a shell and two utilities.
 */

const CLI_BUNDLE = realpathSync(fileURLToPath(new URL('../../cli/agentteam.cjs', import.meta.url)));

/** A PATH directory with just sh, cat and grep (links to the system's), and no agentteam. */
function barePath(t: import('node:test').TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentteam-barepath-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['sh', 'cat', 'grep']) {
    const found = (process.env.PATH ?? '')
      .split(':')
      .map((p) => join(p, name))
      .find((p) => {
        try {
          return realpathSync(p).length > 0;
        } catch {
          return false;
        }
      });
    assert.ok(found, `${name} on PATH`);
    symlinkSync(found, join(dir, name));
  }
  return dir;
}

// The child prints where `agentteam` resolves, the launcher and its directory modes, the guidance line that
// names it, a task created through it, and the same call by the absolute path with no PATH at all.
const SCRIPT = [
  'set -e',
  'p=$(command -v agentteam)',
  'echo "path=$p"',
  'echo "launcher=$(cat "$p" | grep "^exec ")"',
  'echo "guidance=$(grep -F "$p" "$AGENTTEAM_GUIDANCE_FILE")"',
  'echo "create=$(agentteam exec task create \'{"title":"made through the runtime PATH"}\')"',
  'echo "list=$(PATH=/nonexistent "$p" exec task list)"',
].join('\n');

test("every driver: a runtime whose PATH has no agentteam finds the daemon's own and creates a task with it", async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const path = barePath(t);
  // codex-app-server is not a command `run` starts in a shell: the daemon drives it, and
  // codex-app-server.test.ts checks the same PATH entry in the environment it gets.
  for (const runtime of RUNTIME_KINDS.filter((k) => k !== 'codex-app-server')) {
    await t.test(runtime, async () => {
      const r = await cliEnv(
        [
          'run',
          '--server',
          's1',
          '--agent',
          `a-${runtime}`,
          '--runtime',
          runtime,
          '--',
          'sh',
          '-c',
          SCRIPT,
        ],
        { ...env, PATH: path },
      );
      assert.equal(r.code, 0, r.stderr);
      const out = Object.fromEntries(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      assert.match(
        out.path ?? '',
        /\/runtime\/[0-9a-f]{32}\/bin\/agentteam$/,
        'the private bin directory comes first on PATH',
      );
      assert.equal(
        out.launcher,
        `exec '${process.execPath}' '${CLI_BUNDLE}' "$@"`,
        'the CLI the daemon runs from, with its Node',
      );
      assert.ok(
        out.guidance?.includes(`\`${out.path}\``),
        `the guidance names the absolute path: ${out.guidance}`,
      );
      const created = JSON.parse(out.create ?? '') as {
        ok: boolean;
        data: { task: { id: string; title: string } };
      };
      assert.equal(created.ok, true);
      assert.equal(created.data.task.title, 'made through the runtime PATH');
      const listed = JSON.parse(out.list ?? '') as {
        ok: boolean;
        data: { tasks: { id: string }[] };
      };
      assert.ok(
        listed.data.tasks.some((x) => x.id === created.data.task.id),
        'the absolute path works without any PATH',
      );
    });
  }
});

test('the private bin directory and its launcher are owner-only', async (t) => {
  const { env, track } = tempHome(t);
  await startDaemonCli(env, track);
  const r = await cliEnv(
    [
      'run',
      '--server',
      's1',
      '--agent',
      'a1',
      '--',
      'sh',
      '-c',
      'p=$(command -v agentteam); stat -c %a "$(dirname "$p")" "$p"',
    ],
    { ...env, PATH: `${barePath(t)}:/usr/bin:/bin` },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['700', '700']);
});
