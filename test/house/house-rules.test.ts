import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../devkit/cli.js';
import { tsFiles, unusedExports } from '../../scripts/unused-exports.js';

/**
 * House rules checked on the source tree: small files (one concept each),
 * no export without a user outside the tests and their dev kit (test/,
 * devkit/), and the dev kit's helpers kept apart from test files.
 */

const CHECKED = [
  'daemon',
  'cli',
  'lib',
  'catalog',
  'scripts',
  'bench',
  'interop',
  'devkit',
  'test',
];
const MAX_LINES = 300;
/**
 * Generated code is never checked: the build writes it under dist/generated/ only (no
 * checked folder holds any today); a source file whose first line says `@generated` would be skipped too.
 */
const isGenerated = (text: string) => /@generated/.test(text.slice(0, text.indexOf('\n') + 1));
/** Files allowed past the limit for now (none: a file that grows past it is split by concept). */
const TOO_LONG_FOR_NOW = new Set<string>([]);

const sources = (dir: string) => tsFiles(dir).map((path) => relative(ROOT, path));

test(`no source file is over ${MAX_LINES} lines (generated code excepted)`, () => {
  const long: string[] = [];
  for (const file of CHECKED.flatMap((d) => sources(join(ROOT, d)))) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES && !isGenerated(text) && !TOO_LONG_FOR_NOW.has(file))
      long.push(`${file}: ${lines} lines`);
  }
  assert.deepEqual(long, []);
  // The exception list holds only files that still need it.
  for (const file of TOO_LONG_FOR_NOW) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    assert.ok(
      text.split('\n').length > MAX_LINES,
      `${file} is short now: drop it from TOO_LONG_FOR_NOW`,
    );
  }
});

/**
 * Exports of daemon/, cli/, lib/ and catalog/ that a test imports but nothing else: each is a
 * unit's limit or seam that its test pins. The list only shrinks; a new entry needs a reason.
 */
const TESTED_ONLY = new Set<string>([
  'catalog/error-limits.ts: DETAIL_TEXT_MAX_BYTES', // error-bounds.test.ts
  'catalog/error-limits.ts: ERROR_ENVELOPE_MAX_BYTES', // error-bounds.test.ts
  'catalog/receipt.ts: RECEIPT_IDEMPOTENCY', // error-bounds.test.ts
  'catalog/schema-subset.ts: SchemaSubset', // schema-subset.test.ts
  'catalog/tool-declaration.ts: pointerOfPath', // tools-schema.test.ts
  'catalog/tool-fingerprint.ts: canonicalJson', // tool-fingerprint.test.ts
  'cli/exec/argv.ts: parseExecArgv', // cli-program.test.ts
  'cli/exec/http1.ts: Http1Response', // cli-http1-parse.test.ts
  'cli/exec/http1.ts: MAX_HEADER_BYTES', // cli-http1-parse.test.ts
  'cli/exec/request.ts: requestHead', // devkit/http1.ts (cli-http1.test.ts)
  'cli/token/pieces.ts: PIECE_CHARS', // token-analyze-bounds.test.ts
  'cli/token/pieces.ts: pieces', // token-analyze-bounds.test.ts
  'cli/token/session.ts: MAX_LINE_DEPTH', // token-analyze-bounds.test.ts
  'daemon/http/paths.ts: EXEC_BASE', // auth-replace.test.ts, auth-drain.test.ts
  'daemon/audit/trail.ts: cutBytes', // audit-store.test.ts
  'daemon/audit/recorder.ts: AUDIT_BATCH_ROWS', // audit-durability.test.ts, audit-store.test.ts
  'daemon/audit/recorder.ts: AUDIT_FLUSH_MS', // audit-durability.test.ts, audit-store.test.ts
  'daemon/audit/recorder.ts: AUDIT_QUEUE_MAX', // audit-store.test.ts
  'daemon/audit/settings.ts: AUDIT_DEFAULTS', // audit-store.test.ts
  'daemon/audit/settings.ts: AuditSettingsError', // audit-store.test.ts
  'daemon/audit/settings.ts: parseAuditSettings', // audit-store.test.ts
  'daemon/clienttools/remembered.ts: REMEMBERED', // client-tools-remembered.test.ts
  'daemon/console/sessions.ts: CODE_TTL_MS', // console-sessions.test.ts
  'daemon/operator/pairing.ts: PAIRING_TTL_MS', // pairing.test.ts (a code at its expiry)
  'daemon/operator/pairing.ts: PAIRING_FAILURES_MAX', // pairing.test.ts (guesses at the bound)
  'daemon/drivers/names.ts: fromRuntimeName', // mcp-drivers.test.ts
  'daemon/http/read-watch.ts: ReadWatch', // exec-read-watch.test.ts
  'daemon/exec/registry.ts: RegistryError', // exec-registry.test.ts
  'daemon/http/strict-json.ts: MAX_JSON_DEPTH', // exec-json.test.ts
  'daemon/extensions/forward.ts: UPSTREAM_TIMEOUT_MS', // outbound-deadline.test.ts
  'daemon/http/runtime-auth.ts: BUSY_BODY', // auth-admission.test.ts
  'daemon/http/runtime-auth.ts: FORBIDDEN_BODY', // auth-admission.test.ts, auth-forged.test.ts, auth-replace.test.ts, auth-drain.test.ts, exec-body.test.ts, run.test.ts, token-analyze.test.ts
  'daemon/knowledge/text-search.ts: clipBytes', // knowledge-index.test.ts
  'daemon/profile/parse.ts: ProfileError', // ids.test.ts, limits.test.ts
  'daemon/masking/secrets.ts: buildMatcher', // results-gate.test.ts, tools-schema.test.ts
  'daemon/masking/secrets.ts: MIN_SECRET_BYTES', // results-gate.test.ts
  'daemon/schedule/scheduler.ts: STALL_BACKOFF_MS', // scheduler.test.ts
  'daemon/telemetry/recorder.ts: DURATION_BUCKETS', // telemetry-recorder.test.ts
  'daemon/telemetry/recorder.ts: MAX_SERIES', // telemetry-recorder.test.ts
  'daemon/telemetry/recorder.ts: Recorder', // telemetry-recorder.test.ts
  'daemon/tools/command.ts: MAX_CAPTURE_BYTES', // tools-process-budget.test.ts
  'daemon/tools/declared-tool.ts: commandAnswer', // results-gate-tools-property.test.ts
  'daemon/tools/registry.ts: NameConflictError', // tools-registry.test.ts
  'lib/validator-cap.ts: MATERIALIZED_ERRORS', // validator-cap.test.ts
]);
test('every export of daemon/, cli/, lib/ and catalog/ has a user outside test/ and devkit/ (TypeScript compiler API, scripts/unused-exports.ts)', {
  timeout: 120_000,
}, () => {
  const found = unusedExports(ROOT);
  const unused = found.filter((u) => u.tests.length === 0).map((u) => `${u.file}: ${u.name}`);
  assert.deepEqual(
    unused,
    [],
    'exported but used by nobody outside its file: drop the export keyword, or the code',
  );
  const testedOnly = found.filter((u) => u.tests.length > 0).map((u) => `${u.file}: ${u.name}`);
  assert.deepEqual(
    testedOnly.filter((x) => !TESTED_ONLY.has(x)),
    [],
    'exported for a test only: add it to TESTED_ONLY with the test that pins it, or drop the export',
  );
  assert.deepEqual(
    [...TESTED_ONLY].filter((x) => !testedOnly.includes(x)),
    [],
    'TESTED_ONLY names an export that has another user now, or is gone',
  );
});

test('the dev kit holds no tests, and test/ holds only *.test.ts files, one folder deep (npm test runs dist/test/*/*.test.js)', () => {
  const devkit = tsFiles(join(ROOT, 'devkit')).map((path) => relative(ROOT, path));
  assert.deepEqual(
    devkit.filter((f) => f.endsWith('.test.ts')),
    [],
  );
  const tests = sources(join(ROOT, 'test'));
  assert.deepEqual(
    tests.filter(
      (f) => !/^test\/[a-z]+\/[^/]+\.test\.ts$/.test(f) && !f.startsWith('test/fixtures/'),
    ),
    [],
    'helpers belong in devkit/; a test belongs in the test/ folder named for the code it tests',
  );
  const script = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } }
  ).scripts.test;
  assert.match(script, / dist\/test\/\*\/\*\.test\.js$/);
});

/** test/ folders that name no code folder: the checks on the source tree itself, and recorded data. */
const OWN_TEST_FOLDERS = ['house', 'fixtures'];

test('each test/ folder is named for a code folder (a top-level one, or one inside daemon/, cli/ or catalog/)', () => {
  const folders = (dir: string) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  const code = new Set([
    ...CHECKED.filter((d) => d !== 'test' && d !== 'devkit'),
    ...['daemon', 'cli', 'catalog'].flatMap(folders),
  ]);
  assert.deepEqual(
    folders('test').filter((f) => !code.has(f) && !OWN_TEST_FOLDERS.includes(f)),
    [],
  );
});
