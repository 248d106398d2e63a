import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync, type Metafile } from 'esbuild';

/** The installed binary (package.json "bin"), relative to the repository root. */
export const BUNDLE = 'dist/cli/agentteam.cjs';
/** esbuild's record of what went into the bundle, read by test/house/cli-imports.test.ts. */
export const BUNDLE_META = 'dist/cli/agentteam.meta.json';

/**
 * Bundles cli/agentteam.ts and everything it reaches statically or through a
 * literal import() into one CommonJS file, replaced atomically. Only the exec path is reachable
 * that way; cli/program.ts (commander, the other commands) and the generated
 * files are loaded at run time by computed paths, which esbuild leaves alone.
 * import.meta.dirname and import.meta.url, which CommonJS lacks, become the
 * bundle's own directory and file URL, so paths such as
 * `join(import.meta.dirname, '..', 'generated')` resolve from dist/cli exactly
 * as they do from the compiled ESM modules.
 */
export function bundleCli(root: string): Metafile {
  const result = buildSync({
    absWorkingDir: root,
    entryPoints: ['cli/agentteam.ts'],
    outfile: BUNDLE,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Packages are never inlined: the exec path must not need one (the import test checks the bundle's requires).
    packages: 'external',
    define: { 'import.meta.dirname': '__dirname', 'import.meta.url': '__agentteamModule.url' },
    // A getter: the URL is built only by code that asks for it, never on the exec path.
    banner: {
      js: '"use strict";\nconst __agentteamModule = { get url() { return require("node:url").pathToFileURL(__filename).href; } };',
    },
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
    write: false,
  });
  if (result.errors.length > 0)
    throw new Error(`bundling the CLI failed: ${result.errors.map((e) => e.text).join('; ')}`);
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1)
    throw new Error('bundling the CLI produced no single output file');
  // Written beside and renamed into place: a CLI started meanwhile (tests, a runtime) never reads half a file.
  const target = join(root, BUNDLE);
  const fresh = `${target}.new-${process.pid}`;
  writeFileSync(fresh, output.contents, { mode: 0o755 });
  renameSync(fresh, target);
  return result.metafile;
}
