/**
 * Build step after tsc: writes everything derived from the descriptor catalog
 * (see scripts/gen/artifacts.ts) and marks the CLI entry executable.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultCatalog } from '../catalog/catalog.js';
import { buildArtifacts, committedArtifacts } from './gen/artifacts.js';

// dist/scripts/generate.js -> repository root.
const root = fileURLToPath(new URL('../../', import.meta.url));

const catalog = defaultCatalog();
// A removed action must not leave its validator behind.
rmSync(join(root, 'dist/generated'), { recursive: true, force: true });
for (const a of [...committedArtifacts(catalog), ...buildArtifacts(catalog)]) {
  const file = join(root, a.path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, a.content);
}
chmodSync(join(root, 'dist/cli/bin.js'), 0o755);
