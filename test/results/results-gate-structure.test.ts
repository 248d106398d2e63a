import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from '../../devkit/cli.js';

/**
 * The result gate is required by construction, and these tests keep it so:
 * only the gate's own folders (the gate and masking) make `Masked` text (everything that cuts,
 * bounds, chunks, spills or logs takes `Masked`, so raw text there is a type
 * error); no path to an agent, an app, the event stream, the log or a spill
 * file takes the gate as optional; nothing exported bounds without masking.
 */

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return sources(p);
    return n.endsWith('.ts') ? [p] : [];
  });
}

const DAEMON = join(ROOT, 'daemon');
const files = sources(DAEMON).map((p) => ({
  path: relative(ROOT, p),
  text: readFileSync(p, 'utf8'),
}));

test('only daemon/results/ and daemon/masking/ turn text into Masked (a producer cannot claim it masked)', () => {
  assert.ok(files.length > 50, 'the sources are read');
  const gate = ['daemon/results/', 'daemon/masking/'];
  const offenders = files
    .filter((f) => !gate.some((g) => f.path.startsWith(g)) && /as\s+Masked\b/.test(f.text))
    .map((f) => f.path);
  assert.deepEqual(offenders, []);
});

test('no optional gate anywhere in the daemon', () => {
  const offenders = files.flatMap((f) =>
    [
      ...f.text.matchAll(
        /\bgate\?\s*:|\?:\s*ResultGate\b|ResultGate\s*\|\s*undefined|gate\s*\?\s*gate\./g,
      ),
    ].map((m) => `${f.path}: ${m[0]}`),
  );
  assert.deepEqual(offenders, []);
});

test('nothing exported bounds, clips or spills without masking: each takes Masked text', () => {
  const boundary = readFileSync(join(DAEMON, 'results/boundary.ts'), 'utf8');
  assert.doesNotMatch(boundary, /export function boundResult/);
  assert.match(boundary, /export function boundSerialized\([^)]*body: Masked \| undefined/);
  assert.match(
    readFileSync(join(DAEMON, 'results/text.ts'), 'utf8'),
    /export function boundText\(text: Masked,/,
  );
  assert.match(readFileSync(join(DAEMON, 'results/spill.ts'), 'utf8'), /write\(text: Masked\)/);
  assert.match(
    readFileSync(join(DAEMON, 'knowledge/chunk.ts'), 'utf8'),
    /export function chunkText\(text: Masked\)/,
  );
  assert.match(
    readFileSync(join(DAEMON, 'knowledge/text-search.ts'), 'utf8'),
    /export function clipBytes\(text: Masked,/,
  );
  // The log's writer masks: diagnostics are made only with the secret set.
  assert.match(
    readFileSync(join(DAEMON, 'lifecycle/diag.ts'), 'utf8'),
    /export function createDiag\(clock: Clock, secrets: SecretSet,/,
  );
  // Nothing in the daemon writes to stderr directly but the entry point's own start-up messages and the log sink.
  const direct = files
    .filter(
      (f) =>
        f.path !== 'daemon/main.ts' &&
        f.path !== 'daemon/services.ts' &&
        f.path !== 'daemon/server.ts' &&
        /process\.stderr\.write/.test(f.text) &&
        !f.path.startsWith('daemon/drivers/'),
    )
    .map((f) => f.path);
  assert.deepEqual(direct, []);
});
