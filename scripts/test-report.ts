import { existsSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * The test runner's report for people (`npm test`), a node:test custom
 * reporter: one line per test file as it finishes, then each failure with
 * its error, the skipped tests with their reasons, and last the failing
 * tests, one `not ok FILE › TEST` line each, followed by the runner's own
 * closing counts (`# pass N`, `# fail N`, ...) that CI reads. The complete
 * TAP stream goes to a file beside it (package.json's `test` script).
 */

interface TestEventData {
  readonly name: string;
  readonly nesting: number;
  readonly file?: string;
  readonly message?: string;
  readonly skip?: string | boolean;
  readonly todo?: string | boolean;
  readonly details?: {
    readonly duration_ms?: number;
    readonly passed?: boolean;
    readonly error?: TestError;
  };
}

interface TestError {
  readonly message?: string;
  readonly failureType?: string;
  readonly cause?: unknown;
  readonly code?: string;
}

interface TestEvent {
  readonly type: string;
  readonly data: TestEventData;
}

interface Failure {
  readonly where: string;
  readonly error: string;
}

/** How much of one error is shown, and of a failed file's stderr. */
const ERROR_LINES = 12;
const STDERR_LINES = 15;

/** The source file of a compiled test (dist/test/exec/x.test.js -> test/exec/x.test.ts) when it exists, else the path as given. */
function sourceOf(file: string | undefined): string {
  if (!file) return '(unknown file)';
  const rel = relative(process.cwd(), file);
  const src = rel.startsWith('dist/') ? rel.slice('dist/'.length).replace(/\.js$/, '.ts') : rel;
  return src !== rel && existsSync(src) ? src : rel;
}

function errorText(err: TestError | undefined): string {
  if (!err) return 'failed';
  const cause = err.cause as { stack?: unknown; message?: unknown } | string | undefined;
  const text =
    typeof cause === 'object' && cause !== null
      ? String(cause.stack ?? cause.message ?? err.message)
      : String(cause ?? err.message ?? 'failed');
  // The runner's own frames say nothing about the failure.
  const lines = text.split('\n').filter((l) => !/^\s+at .*\(?node:(internal|async_hooks)/.test(l));
  return (
    lines.slice(0, ERROR_LINES).join('\n') +
    (lines.length > ERROR_LINES ? `\n… ${lines.length - ERROR_LINES} more lines` : '')
  );
}

const indent = (text: string, by = '    ') =>
  text
    .split('\n')
    .map((l) => by + l)
    .join('\n');

interface FileState {
  tests: number;
  failed: number;
  /** The file's own result, from its test:complete (sent when it finishes, which may be before its tests are reported). */
  done?: { readonly passed: boolean; readonly ms: number; readonly error: TestError | undefined };
  /** The runner reports files one after another: once another file's results come, this one's are all in. */
  reported: boolean;
  printed: boolean;
}

export default async function* report(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  /** Per file: the names of the tests now open, by nesting level. */
  const open = new Map<string, string[]>();
  const files = new Map<string, FileState>();
  const stderr = new Map<string, string[]>();
  const failures: Failure[] = [];
  const skipped: string[] = [];
  const closing: string[] = [];
  let reporting: string | null = null;
  const state = (file: string): FileState => {
    let f = files.get(file);
    if (!f) {
      f = { tests: 0, failed: 0, reported: false, printed: false };
      files.set(file, f);
    }
    return f;
  };
  /** The file's line, once both its result and all of its tests' reports are in. */
  const line = (file: string, force = false): string => {
    const f = state(file);
    if (f.printed || !f.done || (!f.reported && !force)) return '';
    f.printed = true;
    const seconds = (f.done.ms / 1000).toFixed(1);
    if (f.done.passed) return `✔ ${sourceOf(file)} (${f.tests} tests, ${seconds} s)\n`;
    // A file that failed outside any test (it did not load, or exited early) is one failure of its own.
    if (f.failed === 0) {
      const lines = stderr.get(file) ?? [];
      failures.push({
        where: `${sourceOf(file)} (the file itself)`,
        error: `${errorText(f.done.error)}${lines.length ? `\nlast stderr lines:\n${lines.join('\n')}` : ''}`,
      });
    }
    stderr.delete(file);
    return `✖ ${sourceOf(file)} (${f.tests === 0 ? 'did not run its tests' : `${f.failed || 'the file'} of ${f.tests} failed`}, ${seconds} s)\n`;
  };
  for await (const event of source) {
    const d = event.data;
    const file = d.file ?? '';
    if (
      file &&
      ['test:start', 'test:pass', 'test:fail', 'test:plan'].includes(event.type) &&
      reporting !== file
    ) {
      if (reporting !== null) {
        state(reporting).reported = true;
        yield line(reporting);
      }
      reporting = file;
    }
    switch (event.type) {
      case 'test:start': {
        const stack = open.get(file) ?? [];
        stack.length = d.nesting;
        stack.push(d.name);
        open.set(file, stack);
        break;
      }
      case 'test:stderr': {
        const lines = stderr.get(file) ?? [];
        lines.push(
          ...String(d.message ?? '')
            .split('\n')
            .filter(Boolean),
        );
        stderr.set(file, lines.slice(-STDERR_LINES));
        break;
      }
      case 'test:pass':
      case 'test:fail': {
        if (d.name === d.file) break; // the file itself: see test:complete
        const f = state(file);
        const path = [...(open.get(file) ?? []).slice(0, d.nesting), d.name].join(' › ');
        if (event.type === 'test:fail' && d.details?.error?.failureType !== 'subtestsFailed') {
          f.failed++;
          failures.push({
            where: `${sourceOf(d.file)} › ${path}`,
            error: errorText(d.details?.error),
          });
        }
        if (d.skip !== undefined && d.skip !== false)
          skipped.push(
            `${sourceOf(d.file)} › ${path}${typeof d.skip === 'string' ? `: ${d.skip}` : ''}`,
          );
        f.tests++;
        break;
      }
      case 'test:complete': {
        if (d.name !== d.file || d.nesting !== 0) break;
        state(file).done = {
          passed: d.details?.passed === true,
          ms: d.details?.duration_ms ?? 0,
          error: d.details?.error,
        };
        yield line(file);
        break;
      }
      case 'test:diagnostic':
        // The runner's closing counts (tests, pass, fail, ...) come as top-level diagnostics without a file.
        if (d.nesting === 0 && !d.file && d.message) closing.push(`# ${d.message}\n`);
        break;
      default:
        break;
    }
  }
  for (const file of files.keys()) yield line(file, true);
  if (skipped.length > 0) {
    yield `\nSkipped (${skipped.length}):\n`;
    for (const s of skipped) yield `  - ${s}\n`;
  }
  if (failures.length > 0) {
    yield `\nFailures (${failures.length}; the complete TAP output is in dist/test-results.tap):\n`;
    for (const f of failures) yield `\n✖ ${f.where}\n${indent(f.error)}\n`;
    yield `\nFailing tests:\n`;
    for (const f of failures) yield `not ok ${f.where}\n`;
  }
  yield '\n';
  yield* closing;
}
