import { join } from 'node:path';
import { createValidator } from '../../lib/validator.js';
import {
  readDeclarationFiles,
  resolveProgram,
  type DeclarationIssue,
} from '../../lib/tool-files.js';
import type { RegisteredTool, ToolOwner, ToolRegistry } from './registry.js';
import { BUILTIN_OWNER } from './contracts.js';
import { builtinTool, commandTool, type DeclaredDeps } from './declared-tool.js';

interface LoadedDeclaration {
  readonly name: string;
  readonly file: string;
  readonly transport: 'command' | 'builtin';
}

interface DeclarationReport {
  readonly dir: string;
  readonly loaded: readonly LoadedDeclaration[];
  readonly problems: readonly DeclarationIssue[];
}

/** One owner per file: a clash message names the file. */
const declarationOwner = (file: string): ToolOwner => ({
  key: `declared:${file}`,
  label: `the declaration ${file}`,
});

/**
 * Reads $AGENTTEAM_HOME/tools/*.json (at start-up and on reload) into the
 * tool registry. A bad file is reported with its path and JSON pointer (or
 * line and column) and skipped; the others load. A name already held by a
 * built-in, a client tool or an earlier file is refused, naming both.
 */
export class DeclaredTools {
  private report: DeclarationReport;
  private owners: string[] = [];

  constructor(
    private readonly dir: string,
    private readonly registry: ToolRegistry,
    private readonly deps: DeclaredDeps,
  ) {
    this.report = { dir, loaded: [], problems: [] };
  }

  get last(): DeclarationReport {
    return this.report;
  }

  load(): DeclarationReport {
    const problems: DeclarationIssue[] = [];
    const found = readDeclarationFiles(this.dir, problems);
    for (const key of this.owners) this.registry.remove(key);
    this.owners = [];
    // useDefaults: a `default` in `needs` fills the argument (and its placeholder) when the caller leaves it out.
    // Made only when a file declares a tool: a new ajv compiles its meta-schemas, most of a start's validator cost.
    const ajv = found.length > 0 ? createValidator({ foreign: true, useDefaults: true }) : null;
    const loaded: LoadedDeclaration[] = [];
    const byName = new Map<string, string>();
    for (const { file, decl } of found) {
      const owner = declarationOwner(file);
      const earlier = byName.get(decl.name);
      if (earlier) {
        problems.push({
          file,
          pointer: '/name',
          message: `tool name "${decl.name}" is also declared by ${earlier}`,
        });
        continue;
      }
      const holder = this.registry.conflictOf(owner.key, [decl])?.holder;
      if (holder) {
        problems.push({
          file,
          pointer: '/name',
          message: `tool name "${decl.name}" is already taken by ${holder.label}`,
        });
        continue;
      }
      let tool: RegisteredTool;
      const t = decl.transport;
      if (t.type === 'builtin') {
        const target = this.registry.get(t.tool);
        if (!target || target.owner.key !== BUILTIN_OWNER.key) {
          problems.push({
            file,
            pointer: '/transport/tool',
            message: `"${t.tool}" is not one of the daemon's built-in tools`,
          });
          continue;
        }
        tool = builtinTool(decl, target, owner);
      } else {
        if (!resolveProgram(t.argv[0]!, join(file, '..'), this.deps.env.PATH)) {
          problems.push({
            file,
            pointer: '/transport/argv/0',
            message: `program "${t.argv[0]}" is not an executable file (searched ${t.argv[0]!.includes('/') ? 'relative to the declaration' : 'PATH'})`,
          });
          continue;
        }
        let validate: ReturnType<NonNullable<typeof ajv>['compile']>;
        try {
          validate = ajv!.compile(decl.needs ?? { type: 'object' });
        } catch (err) {
          problems.push({
            file,
            pointer: '/needs',
            message: `the input schema does not compile: ${(err as Error).message}`,
          });
          continue;
        }
        tool = commandTool(decl, t, file, validate, owner, this.deps);
      }
      try {
        this.registry.replace(owner, [tool]);
      } catch (err) {
        problems.push({ file, pointer: '/name', message: (err as Error).message });
        continue;
      }
      this.owners.push(owner.key);
      byName.set(decl.name, file);
      loaded.push({ name: decl.name, file, transport: t.type });
    }
    this.report = { dir: this.dir, loaded, problems };
    return this.report;
  }
}
