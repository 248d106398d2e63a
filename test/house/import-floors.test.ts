import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { tsFiles } from '../../scripts/unused-exports.js';

/**
 * The floors of the house, checked on the sources (so `import type` counts
 * too): the contracts at the ground import nothing above them, the store
 * knows no route family, the shared HTTP plumbing knows neither Exec nor
 * MCP, those two are peers, the daemon never imports CLI code, and no file
 * reaches itself through its imports. A failure names each offending edge
 * as `file:line -> target`.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE_DIRS = ['cli', 'daemon', 'catalog', 'lib'];

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

/** A floor: no file under `from` may import a file under any of `not`. */
interface Floor {
  readonly name: string;
  readonly from: readonly string[];
  readonly not: readonly string[];
}

const FLOORS: readonly Floor[] = [
  {
    name: 'catalog/ and lib/ import no daemon or CLI code',
    from: ['catalog/', 'lib/'],
    not: ['daemon/', 'cli/'],
  },
  {
    name: 'daemon/store/ knows no HTTP, Exec, MCP, results, tools or client tools',
    from: ['daemon/store/'],
    not: [
      'daemon/http/',
      'daemon/exec/',
      'daemon/mcp/',
      'daemon/results/',
      'daemon/tools/',
      'daemon/clienttools/',
    ],
  },
  {
    name: 'daemon/http/ imports nothing from Exec or MCP',
    from: ['daemon/http/'],
    not: ['daemon/exec/', 'daemon/mcp/'],
  },
  {
    name: 'the event bus knows no client tools (it asks StreamClients)',
    from: ['daemon/events/'],
    not: ['daemon/clienttools/'],
  },
  { name: 'exec/ does not import mcp/', from: ['daemon/exec/'], not: ['daemon/mcp/'] },
  { name: 'mcp/ does not import exec/', from: ['daemon/mcp/'], not: ['daemon/exec/'] },
  { name: 'the daemon imports no CLI code', from: ['daemon/'], not: ['cli/'] },
  { name: 'the CLI imports no daemon code', from: ['cli/'], not: ['daemon/'] },
];

/** A folder's sources as repository paths (`daemon/http/body.ts`). */
const sourceFiles = (dir: string) =>
  tsFiles(join(ROOT, dir)).map((path) => relative(ROOT, path).split(sep).join(posix.sep));

/** A relative specifier as the file it names (`./x.js` is written for `x.ts` or `x.tsx`). */
function resolveSpec(from: string, spec: string, known: ReadonlySet<string>): string {
  const target = posix.normalize(posix.join(posix.dirname(from), spec));
  const stem = target.replace(/\.js$/, '');
  for (const c of [`${stem}.ts`, `${stem}.tsx`, target]) if (known.has(c)) return c;
  return target;
}

/**
 * Every relative import between source files: static, `import type`,
 * re-exports, side-effect and literal dynamic imports (the TypeScript
 * scanner, so imports quoted in comments do not count).
 */
function importEdges(files: ReadonlyMap<string, string>): Edge[] {
  const known = new Set(files.keys());
  const edges: Edge[] = [];
  for (const [from, text] of files) {
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const line = text.slice(0, ref.pos).split('\n').length;
      edges.push({ from, to: resolveSpec(from, ref.fileName, known), line });
    }
  }
  return edges;
}

const under = (path: string, prefixes: readonly string[]) =>
  prefixes.some((p) => path.startsWith(p));

/** Each edge that breaks a floor, as `file:line -> target (floor)`. */
function floorViolations(edges: readonly Edge[], floors: readonly Floor[] = FLOORS): string[] {
  return edges.flatMap((e) =>
    floors
      .filter((f) => under(e.from, f.from) && under(e.to, f.not))
      .map((f) => `${e.from}:${e.line} -> ${e.to} (${f.name})`),
  );
}

/** Every circle between files (strongly connected components, Tarjan), each shown as the edges that close it. */
function fileCircles(edges: readonly Edge[]): string[] {
  const out = new Map<string, Edge[]>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    out.set(e.from, [...(out.get(e.from) ?? []), e]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of out.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      members.push(w);
    } while (w !== v);
    if (members.length < 2) return;
    const inside = new Set(members);
    const closing = members
      .sort()
      .flatMap((m) =>
        (out.get(m) ?? [])
          .filter((e) => inside.has(e.to))
          .map((e) => `${e.from}:${e.line} -> ${e.to}`),
      );
    circles.push(`circle of ${members.length} files: ${closing.join(', ')}`);
  };
  for (const v of out.keys()) if (!index.has(v)) visit(v);
  return circles;
}

function readTree(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of SOURCE_DIRS)
    for (const f of sourceFiles(dir)) files.set(f, readFileSync(join(ROOT, f), 'utf8'));
  return files;
}

test('the sources keep every floor of the house', () => {
  const files = readTree();
  assert.ok(
    files.size > 200,
    `the sources are read (${files.size} files under ${relative(process.cwd(), ROOT) || '.'})`,
  );
  const edges = importEdges(files);
  assert.ok(edges.length > files.size, 'imports are found');
  assert.deepEqual(floorViolations(edges), []);
});

test('no circle between source files, counting import type', () => {
  assert.deepEqual(fileCircles(importEdges(readTree())), []);
});

test('the scanner sees import type, re-exports, side-effect and dynamic imports, and skips comments', () => {
  const files = new Map([
    [
      'daemon/a.ts',
      "// import { x } from './commented.js';\nimport type { T } from './b.js';\nexport { y } from './c.js';\nimport './d.js';\nconst m = await import('./e.js');\nimport { ui } from './f.js';\nimport { pkg } from 'hono';\n",
    ],
    ['daemon/b.ts', ''],
    ['daemon/c.ts', ''],
    ['daemon/d.ts', ''],
    ['daemon/e.ts', ''],
    ['daemon/f.tsx', ''],
  ]);
  assert.deepEqual(
    importEdges(files).map((e) => `${e.to}:${e.line}`),
    ['daemon/b.ts:2', 'daemon/c.ts:3', 'daemon/d.ts:4', 'daemon/e.ts:5', 'daemon/f.tsx:6'],
  );
});

test('each floor fails on a synthetic violation and names the edge', () => {
  const bad: Edge[] = [
    { from: 'catalog/x.ts', to: 'daemon/errors.ts', line: 1 },
    { from: 'lib/y.ts', to: 'cli/failure.ts', line: 2 },
    { from: 'daemon/store/z.ts', to: 'daemon/results/gate.ts', line: 3 },
    { from: 'daemon/http/w.ts', to: 'daemon/exec/route.ts', line: 4 },
    { from: 'daemon/exec/v.ts', to: 'daemon/mcp/protocol.ts', line: 5 },
    { from: 'daemon/mcp/u.ts', to: 'daemon/exec/registry.ts', line: 6 },
    { from: 'daemon/console/t.tsx', to: 'cli/token/report.ts', line: 7 },
    { from: 'cli/s.ts', to: 'daemon/app.ts', line: 8 },
  ];
  const found = floorViolations(bad);
  assert.equal(found.length, bad.length, found.join('\n'));
  for (const e of bad)
    assert.ok(
      found.some((f) => f.startsWith(`${e.from}:${e.line} -> ${e.to} (`)),
      `${e.from} -> ${e.to}`,
    );
  // Downward and sideways edges are allowed.
  const good: Edge[] = [
    { from: 'daemon/exec/route.ts', to: 'daemon/http/body.ts', line: 1 },
    { from: 'daemon/mcp/routes.ts', to: 'daemon/tools/contracts.ts', line: 1 },
    { from: 'daemon/store/context.ts', to: 'daemon/store/cursor.ts', line: 1 },
    { from: 'cli/program.ts', to: 'lib/generated.ts', line: 1 },
    { from: 'daemon/http/json-body.ts', to: 'catalog/errors.ts', line: 1 },
  ];
  assert.deepEqual(floorViolations(good), []);
});

test('a circle between files fails and is shown by the edges that close it', () => {
  const edges: Edge[] = [
    { from: 'a.ts', to: 'b.ts', line: 1 },
    { from: 'b.ts', to: 'c.ts', line: 2 },
    { from: 'c.ts', to: 'a.ts', line: 3 },
    { from: 'c.ts', to: 'd.ts', line: 4 },
    { from: 'd.ts', to: 'd.ts', line: 5 },
  ];
  assert.deepEqual(fileCircles(edges), [
    'circle of 3 files: a.ts:1 -> b.ts, b.ts:2 -> c.ts, c.ts:3 -> a.ts',
  ]);
  assert.deepEqual(fileCircles(edges.filter((e) => e.line !== 3)), []);
});
