import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const STATIC =
  /(?:^|[;\n])\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\n])\s*import\s*['"]([^'"]+)['"]/g;
const DYNAMIC = /import\(\s*(['"`])([^'"`]+)\1\s*\)/g;

/**
 * Every file and package reachable from `entry`, a built module under
 * dist/, read as text: through static imports, and through dynamic import()
 * too when `dynamic` (a templated one, such as `./commands/${name}.js`,
 * reaches every file it can name).
 */
export function importGraph(
  entry: string,
  { dynamic }: { dynamic: boolean },
): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const src = readFileSync(file, 'utf8');
    const specs = [...src.matchAll(STATIC)].map((m) => m[1] ?? m[2] ?? '');
    for (const m of dynamic ? src.matchAll(DYNAMIC) : []) {
      const spec = m[2] ?? '';
      if (!spec.includes('${')) specs.push(spec);
      else {
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
