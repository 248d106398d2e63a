import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run test:soak`: the heavy tests at full size. `npm test` runs them
 * at a reduced size (devkit/scale.ts); here AGENTTEAM_TEST_SOAK=1 and only
 * the test files whose imports reach devkit/scale.js run, with the report
 * `npm test` prints and the TAP stream in dist/test-results-soak.tap.
 */

const DIST = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCALE = join(DIST, 'devkit', 'scale.js');

/** The built test files (dist/test/FOLDER/NAME.test.js) that import devkit/scale.js, directly or through other modules. */
export function soakFiles(dist = DIST): string[] {
  const scale = join(dist, 'devkit', 'scale.js');
  const reaches = new Map<string, boolean>();
  const visit = (file: string): boolean => {
    const known = reaches.get(file);
    if (known !== undefined) return known;
    reaches.set(file, false); // a cycle adds nothing
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false;
    }
    const found = [...text.matchAll(/from '(\.\.?\/[^']+\.js)'/g)]
      .map((m) => resolve(dirname(file), m[1]!))
      .some((dep) => dep === scale || visit(dep));
    reaches.set(file, found);
    return found;
  };
  const tests = join(dist, 'test');
  return readdirSync(tests, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(tests, d.name))
        .filter((f) => f.endsWith('.test.js'))
        .map((f) => join(tests, d.name, f)),
    )
    .filter(visit)
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = soakFiles().map((f) => relative(process.cwd(), f));
  if (files.length === 0) throw new Error(`no test file imports ${SCALE}`);
  process.stdout.write(`test:soak: ${files.length} files at soak scale\n`);
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-concurrency=2',
      `--test-reporter=${join(DIST, 'scripts', 'test-report.js')}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${join(DIST, 'test-results-soak.tap')}`,
      ...files,
    ],
    { stdio: 'inherit', env: { ...process.env, AGENTTEAM_TEST_SOAK: '1' } },
  );
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
