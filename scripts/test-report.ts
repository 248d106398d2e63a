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
  readonly details?: { readonly duration_ms?: number; readonly passed?: boolean; readonly error?: TestError };
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

/** The source file of a compiled test (dist/test/x.test.js -> test/x.test.ts) when it exists, else the path as given. */
function sourceOf(file: string | undefined): string {
  if (!file) return '(unknown file)';
  const rel = relative(process.cwd(), file);
  const src = rel.startsWith('dist/') ? rel.slice('dist/'.length).replace(/\.js$/, '.ts') : rel;
  return src !== rel && existsSync(src) ? src : rel;
}

function errorText(err: TestError | undefined): string {
  if (!err) return 'failed';
  const cause = err.cause as { stack?: unknown; message?: unknown } | string | undefined;
  const text = typeof cause === 'object' && cause !== null
    ? String(cause.stack ?? cause.message ?? err.message)
    : String(cause ?? err.message ?? 'failed');
  // The runner's own frames say nothing about the failure.
  const lines = text.split('\n').filter((l) => !/^\s+at .*\(?node:(internal|async_hooks)/.test(l));
  return lines.slice(0, ERROR_LINES).join('\n') + (lines.length > ERROR_LINES ? `\n… ${lines.length - ERROR_LINES} more lines` : '');
}

const indent = (text: string, by = '    ') => text.split('\n').map((l) => by + l).join('\n');

export default async function* report(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  /** Per file: the names of the tests now open, by nesting level. */
  const open = new Map<string, string[]>();
  const counts = new Map<string, { tests: number; failed: number }>();
  const stderr = new Map<string, string[]>();
  const failures: Failure[] = [];
  const skipped: string[] = [];
  const closing: string[] = [];
  for await (const event of source) {
    const d = event.data;
    const file = d.file ?? '';
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
        lines.push(...String(d.message ?? '').split('\n').filter(Boolean));
        stderr.set(file, lines.slice(-STDERR_LINES));
        break;
      }
      case 'test:pass':
      case 'test:fail': {
        if (d.name === d.file) break; // the file itself: reported on test:complete
        const c = counts.get(file) ?? { tests: 0, failed: 0 };
        const path = [...(open.get(file) ?? []).slice(0, d.nesting), d.name].join(' › ');
        if (event.type === 'test:fail' && d.details?.error?.failureType !== 'subtestsFailed') {
          c.failed++;
          failures.push({ where: `${sourceOf(d.file)} › ${path}`, error: errorText(d.details?.error) });
        }
        if (d.skip !== undefined && d.skip !== false) skipped.push(`${sourceOf(d.file)} › ${path}${typeof d.skip === 'string' ? `: ${d.skip}` : ''}`);
        c.tests++;
        counts.set(file, c);
        break;
      }
      case 'test:complete': {
        if (d.name !== d.file || d.nesting !== 0) break;
        const c = counts.get(file) ?? { tests: 0, failed: 0 };
        const seconds = ((d.details?.duration_ms ?? 0) / 1000).toFixed(1);
        if (d.details?.passed) {
          yield `✔ ${sourceOf(d.file)} (${c.tests} tests, ${seconds} s)\n`;
        } else {
          // A file that failed outside any test (it did not load, or exited early) is one failure of its own.
          if (c.failed === 0) {
            const lines = stderr.get(file) ?? [];
            failures.push({ where: `${sourceOf(d.file)} (the file itself)`, error: `${errorText(d.details?.error)}${lines.length ? `\nlast stderr lines:\n${lines.join('\n')}` : ''}` });
          }
          yield `✖ ${sourceOf(d.file)} (${c.tests === 0 ? 'did not run its tests' : `${c.failed || 'the file'} of ${c.tests} failed`}, ${seconds} s)\n`;
        }
        stderr.delete(file);
        open.delete(file);
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
