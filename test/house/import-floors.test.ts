import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { tsFiles } from '../../scripts/unused-exports.js';

/**
 * The floors of the house, checked on the sources (`import type` counts): an
 * import goes to its own folder or a lower floor of the one table in
 * specs/layout.md; every folder is ranked; the CLI and the daemon never import
 * each other; no folder and no file reaches itself. Failures name `file:line -> target`.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE_DIRS = ['cli', 'daemon', 'catalog', 'lib'];
const LAYOUT = 'specs/layout.md';

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

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

/** The rows of the layout's floor table (`| 3 | `daemon/store/` | ... |`): folder -> floor. */
function readFloors(markdown: string): Map<string, number> {
  const floors = new Map<string, number>();
  for (const m of markdown.matchAll(/^\|\s*(\d+)\s*\|\s*`([^`]+)`\s*\|/gm)) {
    if (floors.has(m[2]!)) throw new Error(`${m[2]} is ranked twice`);
    floors.set(m[2]!, Number(m[1]));
  }
  return floors;
}

/** The folder a file belongs to: `daemon/<name>/`, `daemon/*.ts` for the wiring on top, else its first folder. */
function folderOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'daemon') return `${parts[0]}/`;
  return parts.length > 2 ? `daemon/${parts[1]}/` : 'daemon/*.ts';
}

const PROGRAMS = ['cli/', 'daemon/'];

/**
 * Each edge that leaves its folder for one that is not on a lower floor, or
 * for the other program, or touches a folder the table does not rank.
 */
function rankViolations(edges: readonly Edge[], floors: ReadonlyMap<string, number>): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const a = folderOf(e.from);
    const b = folderOf(e.to);
    if (a === b) continue;
    const edge = `${e.from}:${e.line} -> ${e.to}`;
    const ra = floors.get(a);
    const rb = floors.get(b);
    const pa = PROGRAMS.find((p) => e.from.startsWith(p));
    const pb = PROGRAMS.find((p) => e.to.startsWith(p));
    if (pa !== undefined && pb !== undefined && pa !== pb)
      out.push(`${edge} (the CLI and the daemon are two programs)`);
    else if (ra === undefined || rb === undefined)
      out.push(`${edge} (${ra === undefined ? a : b} has no floor in ${LAYOUT})`);
    else if (rb >= ra)
      out.push(
        `${edge} (${rb === ra ? 'sideways' : 'upward'}: ${a} is on floor ${ra}, ${b} on ${rb})`,
      );
  }
  return out;
}

/** Folders with sources that the table does not rank, and rows that name no folder. */
function rankGaps(files: Iterable<string>, floors: ReadonlyMap<string, number>): string[] {
  const present = new Set([...files].map(folderOf));
  return [
    ...[...present].filter((f) => !floors.has(f)).map((f) => `${f} has no floor in ${LAYOUT}`),
    ...[...floors.keys()]
      .filter((f) => !present.has(f))
      .map((f) => `${LAYOUT} ranks ${f}, which holds no source file`),
  ];
}

/**
 * Every circle in the graph the edges make once each end is mapped by `node`
 * (strongly connected components, Tarjan), each shown as the edges that close it.
 */
function circles(
  edges: readonly Edge[],
  node: (path: string) => string = (p) => p,
  what = 'files',
): string[] {
  const out = new Map<string, Edge[]>();
  for (const e of edges) {
    const from = node(e.from);
    if (from === node(e.to)) continue;
    out.set(from, [...(out.get(from) ?? []), e]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const e of out.get(v) ?? []) {
      const to = node(e.to);
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
          .filter((e) => inside.has(node(e.to)))
          .map((e) => `${e.from}:${e.line} -> ${e.to}`),
      );
    found.push(`circle of ${members.length} ${what}: ${closing.join(', ')}`);
  };
  for (const v of out.keys()) if (!index.has(v)) visit(v);
  return found;
}

function readTree(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of SOURCE_DIRS)
    for (const f of sourceFiles(dir)) files.set(f, readFileSync(join(ROOT, f), 'utf8'));
  return files;
}

const layoutFloors = () => readFloors(readFileSync(join(ROOT, LAYOUT), 'utf8'));

test('every folder is ranked in specs/layout.md, and every ranked folder exists', () => {
  const files = readTree();
  assert.ok(
    files.size > 200,
    `the sources are read (${files.size} files under ${relative(process.cwd(), ROOT) || '.'})`,
  );
  const floors = layoutFloors();
  assert.ok(floors.size > 20, `the floor table is read (${floors.size} rows)`);
  assert.deepEqual(rankGaps(files.keys(), floors), []);
});

test('every import goes to its own folder or a lower floor', () => {
  const files = readTree();
  const edges = importEdges(files);
  assert.ok(edges.length > files.size, 'imports are found');
  assert.deepEqual(rankViolations(edges, layoutFloors()), []);
});

test('no circle between folders, counting import type', () => {
  assert.deepEqual(circles(importEdges(readTree()), folderOf, 'folders'), []);
});

test('no circle between source files, counting import type', () => {
  assert.deepEqual(circles(importEdges(readTree())), []);
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

const TWO_ROWS = '| 2 | `daemon/http/` | x |\n| 3 | `daemon/gone/` | y |';

test('the rank check fails on a synthetic upward, sideways, cross-program or unranked edge', () => {
  const floors = readFloors(
    [
      '| floor | folder | holds |',
      '|------:|--------|-------|',
      '| 0 | `catalog/` | contracts |',
      '| 1 | `lib/` | helpers |',
      '| 2 | `cli/` | the binary |',
      '| 2 | `daemon/http/` | plumbing |',
      '| 2 | `daemon/store/` | the store |',
      '| 3 | `daemon/exec/` | a route family |',
      '| 4 | `daemon/*.ts` | the wiring |',
    ].join('\n'),
  );
  assert.equal(folderOf('daemon/app.ts'), 'daemon/*.ts');
  assert.equal(folderOf('daemon/store/postgres/pg.ts'), 'daemon/store/');
  const bad: Edge[] = [
    { from: 'daemon/http/body.ts', to: 'daemon/exec/route.ts', line: 4 },
    { from: 'catalog/x.ts', to: 'lib/y.ts', line: 1 },
    { from: 'daemon/store/db.ts', to: 'daemon/http/paths.ts', line: 3 },
    { from: 'daemon/exec/route.ts', to: 'daemon/app.ts', line: 7 },
    { from: 'cli/s.ts', to: 'daemon/http/paths.ts', line: 8 },
    { from: 'daemon/exec/v.ts', to: 'cli/failure.ts', line: 5 },
    { from: 'daemon/exec/v.ts', to: 'daemon/unranked/u.ts', line: 6 },
  ];
  const found = rankViolations(bad, floors);
  assert.equal(found.length, bad.length, found.join('\n'));
  for (const e of bad)
    assert.ok(
      found.some((f) => f.startsWith(`${e.from}:${e.line} -> ${e.to} (`)),
      `${e.from} -> ${e.to}`,
    );
  assert.match(found[0]!, /upward: daemon\/http\/ is on floor 2, daemon\/exec\/ on 3/);
  assert.match(found[2]!, /sideways/);
  assert.match(found[6]!, /daemon\/unranked\/ has no floor/);
  // Downward edges and edges inside a folder are allowed.
  const good: Edge[] = [
    { from: 'daemon/exec/route.ts', to: 'daemon/http/body.ts', line: 1 },
    { from: 'daemon/app.ts', to: 'daemon/exec/route.ts', line: 1 },
    { from: 'daemon/store/postgres/pg.ts', to: 'daemon/store/db.ts', line: 1 },
    { from: 'cli/program.ts', to: 'lib/generated.ts', line: 1 },
    { from: 'daemon/http/json-body.ts', to: 'catalog/errors.ts', line: 1 },
  ];
  assert.deepEqual(rankViolations(good, floors), []);
  const gaps = rankGaps(['daemon/http/a.ts', 'daemon/new/b.ts'], readFloors(TWO_ROWS));
  assert.deepEqual(gaps, [
    `daemon/new/ has no floor in ${LAYOUT}`,
    `${LAYOUT} ranks daemon/gone/, which holds no source file`,
  ]);
  assert.throws(() => readFloors('| 1 | `lib/` | a |\n| 2 | `lib/` | b |'), /ranked twice/);
});

test('a circle between folders or files fails and is shown by the edges that close it', () => {
  const edges: Edge[] = [
    { from: 'a.ts', to: 'b.ts', line: 1 },
    { from: 'b.ts', to: 'c.ts', line: 2 },
    { from: 'c.ts', to: 'a.ts', line: 3 },
    { from: 'c.ts', to: 'd.ts', line: 4 },
    { from: 'd.ts', to: 'd.ts', line: 5 },
  ];
  assert.deepEqual(circles(edges), [
    'circle of 3 files: a.ts:1 -> b.ts, b.ts:2 -> c.ts, c.ts:3 -> a.ts',
  ]);
  assert.deepEqual(circles(edges.filter((e) => e.line !== 3)), []);
  // No file circle, but two folders that import each other.
  const folders: Edge[] = [
    { from: 'daemon/http/a.ts', to: 'daemon/auth/b.ts', line: 1 },
    { from: 'daemon/auth/c.ts', to: 'daemon/http/d.ts', line: 2 },
    { from: 'daemon/auth/c.ts', to: 'daemon/auth/b.ts', line: 3 },
  ];
  assert.deepEqual(circles(folders), []);
  assert.deepEqual(circles(folders, folderOf, 'folders'), [
    'circle of 2 folders: daemon/auth/c.ts:2 -> daemon/http/d.ts, daemon/http/a.ts:1 -> daemon/auth/b.ts',
  ]);
});
