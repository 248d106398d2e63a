import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Lists the exported symbols of the product folders (daemon/, cli/, lib/,
 * catalog/) that no file outside the tests (test/ and their dev kit, devkit/)
 * imports: an export that only a test reaches is surface nobody else relies
 * on, and one nobody reaches is dead.
 *
 * Built on the TypeScript compiler (a devDependency already) rather than a
 * separate tool: it resolves `.js` specifiers to their `.ts` sources exactly
 * as the build does, follows re-exports, and needs no configuration of its own.
 *
 * What counts as a user: a static import or re-export by name; `import * as`
 * and a literal dynamic `import()` use every export of the module; a
 * templated dynamic import (`./commands/${name}.js`) uses every export of
 * each file it can name. Files under bench/, interop/ and scripts/ are users
 * like any other. A file's own uses of its export do not count (then the
 * `export` keyword is what is unused).
 */

const PRODUCT = ['daemon', 'cli', 'lib', 'catalog'];
const SOURCES = [...PRODUCT, 'scripts', 'bench', 'interop', 'devkit', 'test'];
/** Test code: the suites and the dev kit they share with bench/ and interop/. */
const TEST_CODE = ['test', 'devkit'];

export interface UnusedExport {
  readonly file: string;
  readonly name: string;
  /** Test files that import it (then it is a unit's surface under test, nothing else's). */
  readonly tests: readonly string[];
}

/** The TypeScript sources under `dir` (declaration files excepted), as paths joined onto it. */
export function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...tsFiles(path));
    else if (/\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

export function unusedExports(root: string): UnusedExport[] {
  const files = SOURCES.flatMap((d) => tsFiles(join(root, d)));
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true, incremental: false });
  const checker = program.getTypeChecker();
  const isTest = (file: string) => TEST_CODE.some((d) => relative(root, file).startsWith(`${d}/`));
  const isProduct = (file: string) => PRODUCT.some((d) => relative(root, file).startsWith(`${d}/`));
  const used = new Set<ts.Symbol>();
  const wholeModules = new Set<string>();
  // The same bookkeeping for test/ files, kept apart: symbol or module -> the test files using it.
  const testUses = new Map<ts.Symbol | string, Set<string>>();

  const resolveSymbol = (s: ts.Symbol): ts.Symbol =>
    (s.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(s) : s;
  const moduleFile = (from: ts.SourceFile, spec: string): string | undefined =>
    ts.resolveModuleName(spec, from.fileName, program.getCompilerOptions(), ts.sys).resolvedModule
      ?.resolvedFileName;

  for (const sf of program.getSourceFiles()) {
    if (sf.isDeclarationFile || !files.includes(sf.fileName)) continue;
    const inTest = isTest(sf.fileName);
    const use = (s: ts.Symbol) => {
      if (!inTest) used.add(s);
      else testUses.set(s, (testUses.get(s) ?? new Set()).add(relative(root, sf.fileName)));
    };
    const useModule = (file: string) => {
      if (!inTest) wholeModules.add(file);
      else testUses.set(file, (testUses.get(file) ?? new Set()).add(relative(root, sf.fileName)));
    };
    const visit = (node: ts.Node): void => {
      if (
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
        node.moduleSpecifier &&
        ts.isStringLiteral(node.moduleSpecifier)
      ) {
        const target = moduleFile(sf, node.moduleSpecifier.text);
        if (ts.isImportDeclaration(node)) {
          const bindings = node.importClause?.namedBindings;
          if (bindings && ts.isNamespaceImport(bindings) && target) useModule(target);
          for (const el of bindings && ts.isNamedImports(bindings) ? bindings.elements : []) {
            const s = checker.getSymbolAtLocation(el.name);
            if (s) use(resolveSymbol(s));
          }
          if (node.importClause?.name) {
            const s = checker.getSymbolAtLocation(node.importClause.name);
            if (s) use(resolveSymbol(s));
          }
        } else if (!node.exportClause && target) {
          useModule(target); // export * from
        } else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
          for (const el of node.exportClause.elements) {
            const s = checker.getSymbolAtLocation(el.propertyName ?? el.name);
            if (s) use(resolveSymbol(s));
          }
        }
      }
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = node.arguments[0];
        if (arg && ts.isStringLiteral(arg)) {
          const target = moduleFile(sf, arg.text);
          // `const { a, b } = await import('x')` uses a and b; any other shape uses the whole module.
          const decl = ts.isAwaitExpression(node.parent) ? node.parent.parent : undefined;
          const names =
            decl && ts.isVariableDeclaration(decl) && ts.isObjectBindingPattern(decl.name)
              ? decl.name.elements.map((el) => (el.propertyName ?? el.name).getText(sf))
              : undefined;
          const targetSf = target ? program.getSourceFile(target) : undefined;
          const mod = targetSf ? checker.getSymbolAtLocation(targetSf) : undefined;
          if (names && mod) {
            const exports = checker.getExportsOfModule(mod);
            for (const n of names) {
              const e = exports.find((x) => x.name === n);
              if (e) use(resolveSymbol(e));
            }
          } else if (target) useModule(target);
        } else if (arg && ts.isTemplateExpression(arg)) {
          // Every file the template can name: same folder prefix and suffix.
          const head = resolve(dirname(sf.fileName), arg.head.text);
          const tail =
            arg.templateSpans[arg.templateSpans.length - 1]?.literal.text.replace(/\.js$/, '.ts') ??
            '';
          for (const f of files) if (f.startsWith(head) && f.endsWith(tail)) useModule(f);
        }
      }
      // `typeof import('./program.js')` types a dynamic import whose specifier is not a literal (cli/agentteam.ts).
      if (
        ts.isImportTypeNode(node) &&
        ts.isLiteralTypeNode(node.argument) &&
        ts.isStringLiteral(node.argument.literal)
      ) {
        const target = moduleFile(sf, node.argument.literal.text);
        if (target) useModule(target);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  const out: UnusedExport[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!isProduct(sf.fileName) || wholeModules.has(sf.fileName)) continue;
    const mod = checker.getSymbolAtLocation(sf);
    if (!mod) continue;
    for (const exp of checker.getExportsOfModule(mod)) {
      const target = resolveSymbol(exp);
      // A re-export names another file's symbol: judged there.
      const declFile = target.declarations?.[0]?.getSourceFile().fileName;
      if (declFile !== sf.fileName) continue;
      if (used.has(target)) continue;
      const tests = new Set([
        ...(testUses.get(target) ?? []),
        ...(testUses.get(sf.fileName) ?? []),
      ]);
      out.push({ file: relative(root, sf.fileName), name: exp.name, tests: [...tests].sort() });
    }
  }
  return out.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const found = unusedExports(root);
  for (const u of found)
    console.log(
      `${u.file}: ${u.name}${u.tests.length ? `  (tests only: ${u.tests.join(', ')})` : ''}`,
    );
  console.log(`${found.length} exports with no user outside test/`);
  process.exitCode = found.length > 0 ? 1 : 0;
}
