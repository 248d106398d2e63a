import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { DOMAINS } from '../../catalog/catalog.js';
import {
  ExtensionDefinitionError,
  parseExtension,
  EXTENSION_NAME_PATTERN,
} from '../../catalog/extension.js';
import { ExecError } from '../errors/exec-error.js';
import { writeFileAtomic } from '../profile/profile-edit.js';
import { compileInputCheck } from '../exec/validate.js';
import { buildRuntimeCatalog, type InstalledExtension, type RuntimeCatalog } from './catalog.js';

interface ExtensionSummary {
  readonly name: string;
  readonly digest: string;
  readonly upstream: string;
  readonly actions: string[];
}

const digestOf = (text: string) =>
  `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/**
 * Installed extensions in `$AGENTTEAM_HOME/extensions/<name>.json`, kept as
 * the exact bytes installed (the digest is of those bytes), and the catalog
 * version, a counter in `extensions/catalog-version` that moves on every
 * install and removal. `current()` is the runtime catalog new
 * authorizations pin; one already pinned never changes.
 */
export class ExtensionStore {
  private readonly dir: string;
  private version: number;
  private catalog: RuntimeCatalog;

  constructor(
    home: string,
    private readonly log: (m: string) => void = () => {},
  ) {
    this.dir = join(home, 'extensions');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const v = Number(
      existsSync(this.versionFile) ? readFileSync(this.versionFile, 'utf8').trim() : '0',
    );
    this.version = Number.isSafeInteger(v) && v >= 0 ? v : 0;
    this.catalog = this.rebuild();
  }

  private get versionFile(): string {
    return join(this.dir, 'catalog-version');
  }

  current(): RuntimeCatalog {
    return this.catalog;
  }

  list(): ExtensionSummary[] {
    return this.load().map(({ definition: d, digest }) => ({
      name: d.name,
      digest,
      upstream: d.upstream,
      actions: d.actions.map((a) => a.action),
    }));
  }

  install(text: string): ExtensionSummary & { catalogVersion: string } {
    let def: ReturnType<typeof parseExtension>;
    try {
      def = parseExtension(text, Object.keys(DOMAINS));
      for (const a of def.actions) {
        for (const kind of ['input', 'output'] as const) {
          try {
            compileInputCheck({ ...a, input: a[kind] });
          } catch (err) {
            throw new ExtensionDefinitionError(
              `/actions/${def.actions.indexOf(a)}/${kind}`,
              `not a valid JSON Schema: ${(err as Error).message}`,
            );
          }
        }
      }
    } catch (err) {
      if (err instanceof ExtensionDefinitionError) {
        throw new ExecError('validation_failed', `invalid extension definition: ${err.message}`, {
          details: [{ path: err.path, message: err.message }],
        });
      }
      throw err;
    }
    writeFileAtomic(join(this.dir, `${def.name}.json`), text);
    this.bump();
    return {
      name: def.name,
      digest: digestOf(text),
      upstream: def.upstream,
      actions: def.actions.map((a) => a.action),
      catalogVersion: this.catalog.catalogVersion,
    };
  }

  remove(name: string): { removed: string; catalogVersion: string } {
    if (!EXTENSION_NAME_PATTERN.test(name) || !existsSync(join(this.dir, `${name}.json`))) {
      throw new ExecError('not_found', `extension ${name} is not installed`);
    }
    rmSync(join(this.dir, `${name}.json`));
    this.bump();
    return { removed: name, catalogVersion: this.catalog.catalogVersion };
  }

  private bump(): void {
    this.version += 1;
    writeFileAtomic(this.versionFile, `${this.version}\n`);
    this.catalog = this.rebuild();
  }

  private rebuild(): RuntimeCatalog {
    return buildRuntimeCatalog(this.load(), String(this.version));
  }

  /** Every installed file that still parses; a broken one is reported and left out. */
  private load(): InstalledExtension[] {
    const out: InstalledExtension[] = [];
    for (const file of readdirSync(this.dir)
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const text = readFileSync(join(this.dir, file), 'utf8');
      try {
        const definition = parseExtension(text, Object.keys(DOMAINS));
        if (`${definition.name}.json` !== file) throw new Error(`its name is ${definition.name}`);
        out.push({ definition, digest: digestOf(text) });
      } catch (err) {
        this.log(`extension ${file} skipped: ${(err as Error).message}`);
      }
    }
    return out;
  }
}
