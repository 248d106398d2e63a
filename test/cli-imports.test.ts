import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The CLI's start-up cost is a product property, so its import graph is
 * checked statically on the compiled files: the exec command must reach no
 * daemon code, no ajv, no commander and no schema-carrying catalog module,
 * and no command may import daemon code at all.
 */
const DIST = fileURLToPath(new URL('../', import.meta.url));

const STATIC = /(?:^|[;\n])\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;
const DYNAMIC = /import\(\s*(['"`])([^'"`]+)\1\s*\)/g;

/** Every file and package reachable from `entry` through static and dynamic imports. */
function graph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(file, 'utf8');
    const specs = [...src.matchAll(STATIC)].map((m) => m[1] ?? m[2] ?? '');
    for (const m of src.matchAll(DYNAMIC)) {
      const spec = m[2] ?? '';
      if (!spec.includes('${')) specs.push(spec);
      else {
        // A template such as `./commands/${name}.js`: every file it can name.
        const dir = resolve(dirname(file), dirname(spec));
        for (const f of readdirSync(dir)) if (f.endsWith('.js')) visit(resolve(dir, f));
      }
    }
    for (const spec of specs) {
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else packages.add(spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
    }
  };
  visit(entry);
  return { files, packages };
}

const rel = (files: Set<string>) => [...files].map((f) => relative(DIST, f)).sort();

test('the exec command reaches no daemon code, no ajv or commander, and no schema-carrying catalog module', () => {
  const { files, packages } = graph(resolve(DIST, 'cli/commands/exec.js'));
  assert.deepEqual([...packages], []);
  const names = rel(files);
  assert.deepEqual(names.filter((f) => f.startsWith('daemon/')), []);
  assert.deepEqual(names.filter((f) => /^catalog\/(catalog|index|domains\/|envelope|view)/.test(f)), []);
});

test('no CLI command imports daemon code (the daemon is spawned, never imported)', () => {
  const { files } = graph(resolve(DIST, 'cli/bin.js'));
  assert.ok(files.size > 5);
  assert.deepEqual(rel(files).filter((f) => f.startsWith('daemon/')), []);
});

test('the import scanner sees static, dynamic and templated imports', () => {
  const names = rel(graph(resolve(DIST, 'cli/bin.js')).files);
  for (const f of ['cli/program.js', 'cli/commands/exec.js', 'cli/exec/call.js', 'cli/exec/request.js', 'cli/exec/suggest.js', 'lib/generated.js']) assert.ok(names.includes(f), f);
});
