/**
 * Build step after tsc: writes everything derived from the descriptor catalog
 * (see scripts/gen/artifacts.ts), bundles the CLI binary (scripts/gen/bundle.ts)
 * and marks the CLI entries executable.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultCatalog } from '../catalog/catalog.js';
import { buildArtifacts, committedArtifacts } from './gen/artifacts.js';
import { BUNDLE, BUNDLE_META, bundleCli } from './gen/bundle.js';

// dist/scripts/generate.js -> repository root.
const root = fileURLToPath(new URL('../../', import.meta.url));
const GENERATED = 'dist/generated/';

const catalog = defaultCatalog();
for (const a of committedArtifacts(catalog)) write(join(root, a.path), a.content);

// dist/generated is rebuilt beside the old one and swapped in, so that a
// removed action leaves no validator behind and a CLI running meanwhile never
// sees a half-written directory.
const target = join(root, GENERATED);
const fresh = join(root, `dist/generated.new-${process.pid}`);
const old = join(root, `dist/generated.old-${process.pid}`);
for (const a of buildArtifacts(catalog)) {
  if (!a.path.startsWith(GENERATED))
    throw new Error(`build artifact outside ${GENERATED}: ${a.path}`);
  write(join(fresh, a.path.slice(GENERATED.length)), a.content);
}
try {
  renameSync(target, old);
} catch (err) {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}
renameSync(fresh, target);
rmSync(old, { recursive: true, force: true });
const meta = bundleCli(root);
write(join(root, BUNDLE_META), `${JSON.stringify(meta, null, 2)}\n`);
chmodSync(join(root, BUNDLE), 0o755);
chmodSync(join(root, 'dist/cli/bin.js'), 0o755);

function write(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}
