import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package version, from package.json (two levels above dist/cli). */
export function packageVersion(): string {
  const here = import.meta.dirname ?? dirname(fileURLToPath(import.meta.url));
  const pkg = JSON.parse(readFileSync(join(here, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
