import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The CLI's start-up cost is a product property, so what it loads is checked
 * statically on the build output: the exec path (the bundled binary, and the
 * compiled ESM modules cli/program.ts would load) must reach no daemon code,
 * no package (ajv, commander) and no schema-carrying catalog module, and no
 * command may import daemon code at all.
 */
const DIST = fileURLToPath(new URL('../../', import.meta.url));

const STATIC =
  /(?:^|[;\n])\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;
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
      else
        packages.add(
          spec
            .split('/')
            .slice(0, spec.startsWith('@') ? 2 : 1)
            .join('/'),
        );
    }
  };
  visit(entry);
  return { files, packages };
}

const rel = (files: Set<string>) => [...files].map((f) => relative(DIST, f)).sort();

/**
 * The installed binary is one CommonJS bundle of the exec path
 * (dist/cli/agentteam.cjs, see scripts/gen/bundle.ts). What went into it is
 * read from esbuild's metafile, which the build writes beside it; what it
 * loads at run time is read from the bundle's own text.
 */
const BUNDLE = resolve(DIST, 'cli/agentteam.cjs');
interface Meta {
  inputs: Record<string, unknown>;
  outputs: Record<string, { bytes: number }>;
}
const meta = JSON.parse(readFileSync(resolve(DIST, 'cli/agentteam.meta.json'), 'utf8')) as Meta;
const bundleText = readFileSync(BUNDLE, 'utf8');

test('the metafile describes the bundle on disk', () => {
  assert.deepEqual(
    Object.values(meta.outputs).map((o) => o.bytes),
    [Buffer.byteLength(bundleText)],
  );
});

test('the exec bundle holds no daemon code, no package and no schema-carrying catalog module', () => {
  const inputs = Object.keys(meta.inputs).sort();
  for (const f of [
    'cli/agentteam.ts',
    'cli/commands/exec.ts',
    'cli/exec/call.ts',
    'cli/exec/request.ts',
    'cli/exec/suggest.ts',
    'lib/generated.ts',
    'lib/input-validators.ts',
  ]) {
    assert.ok(inputs.includes(f), f);
  }
  assert.deepEqual(
    inputs.filter((f) => !/^(cli|lib|catalog)\//.test(f)),
    [],
  );
  assert.deepEqual(
    inputs.filter((f) => /^catalog\/(catalog|index|domains\/|envelope|view)/.test(f)),
    [],
  );
  // commander and every other command are left to cli/program.ts.
  assert.deepEqual(
    inputs.filter((f) => f === 'cli/program.ts' || /^cli\/commands\/(?!exec\.ts$)/.test(f)),
    [],
  );
});

test('at run time the bundle requires only node built-ins and imports nothing but built-ins and the program module', () => {
  const required = new Set([...bundleText.matchAll(/\brequire\(([^)]*)\)/g)].map((m) => m[1]));
  for (const r of required)
    assert.match(
      r ?? '',
      /^"node:[a-z_/]+"$|^\(0, import_node_url\d*\.fileURLToPath\)\(file\)$/,
      `require(${r})`,
    );
  const imported = [...bundleText.matchAll(/\bimport\(((?:[^()]|\([^()]*\))*)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((spec) => !/^"node:[a-z_/]+"$/.test(spec))
    .sort();
  assert.deepEqual(imported, ['program']);
  assert.match(
    bundleText,
    /\b(?:var|const|let) program = new URL\("\.\/program\.js", __agentteamModule\.url\)\.href;/,
  );
});

test('the exec command as compiled ESM (how cli/program.ts loads it) reaches no daemon code, no package and no schema-carrying catalog module', () => {
  const { files, packages } = graph(resolve(DIST, 'cli/exec/argv.js'));
  assert.deepEqual([...packages], []);
  const names = rel(files);
  assert.deepEqual(
    names.filter((f) => f.startsWith('daemon/')),
    [],
  );
  assert.deepEqual(
    names.filter((f) => /^catalog\/(catalog|index|domains\/|envelope|view)/.test(f)),
    [],
  );
});

test('no CLI command imports daemon code (the daemon is spawned, never imported)', () => {
  const { files } = graph(resolve(DIST, 'cli/program.js'));
  assert.ok(files.size > 5);
  assert.deepEqual(
    rel(files).filter((f) => f.startsWith('daemon/')),
    [],
  );
  assert.deepEqual(
    Object.keys(meta.inputs).filter((f) => f.startsWith('daemon/')),
    [],
  );
});

test('the import scanner sees static, dynamic and templated imports', () => {
  const names = rel(graph(resolve(DIST, 'cli/program.js')).files);
  for (const f of [
    'cli/failure.js',
    'cli/exec/argv.js',
    'cli/commands/exec.js',
    'cli/commands/run.js',
    'cli/exec/call.js',
    'cli/exec/request.js',
    'cli/exec/suggest.js',
    'lib/generated.js',
  ])
    assert.ok(names.includes(f), f);
});
