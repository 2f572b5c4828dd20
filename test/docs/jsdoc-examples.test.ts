/**
 * Every `@example` in the doc comments of runtime/, integrations/kysely/ and generator/ (tests
 * aside) compiles. Each example becomes a module of an in-memory host beside the repository
 * (`.jsdoc-examples/`, never written), and all are type-checked in one program with the
 * repository's compiler options and `paths` (`jsonapi-gen`, `jsonapi-gen/node`,
 * `jsonapi-gen/internal`, `@jsonapi-gen/kysely` served from their sources).
 *
 * What an example sees without writing it:
 * - every export of the file it documents, and every public export of its package
 *   (`jsonapi-gen`; for integrations/kysely/ also `@jsonapi-gen/kysely`), unless the example
 *   declares or imports that name itself (the file's own exports win over the package's);
 * - the host's modules, laid out as the README's host and backed by the blog demo:
 *   `./schema.js` (its resources), `./generated/index.js` (the generated code), `./db.js`
 *   (`db`, a `Kysely<Database>`, and `Database`) and `./store.js` (`store`, its Kysely data
 *   layers). The demo declares `ContextAttributes { user: string }`, so every example does.
 *
 * Anything else an example uses it imports or declares on its first lines
 * (`declare const api: JsonApi;`, `declare const ctx: Context;`), with a type: an `any` in an
 * example fails the test. Its relative imports resolve as in the file it documents
 * (`import type { RequestState } from '../state.js'`), except the host's modules above.
 * An example is whole statements: a fragment that is an object member is written as the
 * object it belongs to (`const layer: Countable<Row[]> = { count: (rows) => rows.length };`),
 * and a body left out is a comment line (`// ...`) inside its braces.
 *
 * A line that says `// compile error` must fail to compile (the example promises it), as in
 * the READMEs. An example that shows something other than TypeScript (a JSON document, SQL
 * text) is fenced with its language inside the `@example` (```json ... ```) and is not
 * compiled; a ```ts fence is compiled.
 */
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type DocExample, allDocExamples, docExamples, sourceFiles, specifierOf } from './jsdoc.js';
import { ROOT } from './readme.js';

const HOST = join(ROOT, '.jsdoc-examples');

/** The host's own modules, backed by the blog demo: what `./schema.js` and the like name in an example. */
const HOST_MODULES: Record<string, string> = {
  'schema.ts': `export * from '${specifierOf(HOST, 'examples/blog/schema.ts')}';\n`,
  'generated/index.ts': `export * from '${specifierOf(join(HOST, 'generated'), 'examples/blog/generated/index.ts')}';\n`,
  'db.ts': `import type { Kysely } from 'kysely';
import type { Database } from '${specifierOf(HOST, 'examples/blog/db.ts')}';
export type { Database };
export declare const db: Kysely<Database>;
`,
  'store.ts': `import { createStore } from '${specifierOf(HOST, 'examples/blog/store.ts')}';
import { db } from './db.js';
export const store = createStore(db);
`,
};
const HOST_SPECIFIERS = new Set(Object.keys(HOST_MODULES).map((path) => `./${path.replace(/\.ts$/, '.js')}`));

/** The public entry points an example of a package's file sees, nearest first: specifier and source. */
function packagesOf(file: string): { specifier: string; file: string }[] {
  const runtime = { specifier: 'jsonapi-gen', file: 'runtime/index.ts' };
  if (file.startsWith('integrations/kysely/'))
    return [{ specifier: '@jsonapi-gen/kysely', file: 'integrations/kysely/index.ts' }, runtime];
  return [runtime];
}

const examples = allDocExamples();
const checked = examples.filter((example) => example.language === 'ts');
const fileOf = (example: DocExample) =>
  join(HOST, `${example.file.replace(/\.ts$/, '').replace(/\W+/g, '-')}-${example.line}.ts`);
/** The documented file of each example's module. */
const documented = new Map(checked.map((example) => [fileOf(example), join(ROOT, example.file)]));

const config = ts.getParsedCommandLineOfConfigFile(
  join(ROOT, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
if (!config) throw new Error('cannot read tsconfig.json');
const options: ts.CompilerOptions = { ...config.options, noEmit: true };

/** The repository's files as parsed once, for both programs below. */
const parsed = new Map<string, ts.SourceFile>();

/**
 * A compiler host that also serves `files` (absolute path → text) from memory, and resolves an
 * example's imports as its documented file's, but for the host's modules.
 */
function hostWith(files: ReadonlyMap<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const folders = new Set([...files.keys()].map((path) => dirname(path)));
  const served: ts.CompilerHost = {
    ...host,
    fileExists: (path) => files.has(path) || host.fileExists(path),
    directoryExists: (path) => folders.has(path) || ts.sys.directoryExists(path),
    readFile: (path) => files.get(path) ?? host.readFile(path),
    getSourceFile: (path, language, onError, create) => {
      const text = files.get(path);
      if (text !== undefined) return ts.createSourceFile(path, text, language, true);
      const source = parsed.get(path) ?? host.getSourceFile(path, language, onError, create);
      if (source) parsed.set(path, source);
      return source;
    },
    resolveModuleNameLiterals: (literals, containingFile, _redirect, compilerOptions, source) =>
      literals.map((literal) => {
        const from = HOST_SPECIFIERS.has(literal.text)
          ? containingFile
          : (documented.get(containingFile) ?? containingFile);
        return ts.resolveModuleName(
          literal.text,
          from,
          compilerOptions,
          served,
          undefined,
          undefined,
          ts.getModeForUsageLocation(source, literal, compilerOptions),
        );
      }),
  };
  return served;
}

interface Import {
  readonly name: string;
  /** Whether the name is a type only (imported with `type`, as `verbatimModuleSyntax` wants). */
  readonly typeOnly: boolean;
}

/** The exports of each module, read with the checker of a program of those modules. */
function exportsOf(program: ts.Program, file: string): Import[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(ROOT, file));
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) return [];
  return checker.getExportsOfModule(module).flatMap((symbol) => {
    if (!/^[A-Za-z_$][\w$]*$/.test(symbol.name) || symbol.name === 'default') return [];
    let target = symbol;
    let typeOnly = false;
    while (target.flags & ts.SymbolFlags.Alias) {
      if (target.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d))) typeOnly = true;
      target = checker.getImmediateAliasedSymbol(target) ?? target;
      if (target === symbol) break;
    }
    return [{ name: symbol.name, typeOnly: typeOnly || !(target.flags & ts.SymbolFlags.Value) }];
  });
}

/** The names an example binds at its top level (imports and declarations). */
function declaredNames(code: string): Set<string> {
  const names = new Set<string>();
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of ts.createSourceFile('example.ts', code, ts.ScriptTarget.Latest).statements) {
    if (ts.isImportDeclaration(statement) && statement.importClause) {
      const clause = statement.importClause;
      if (clause.name) names.add(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) names.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return names;
}

interface Problem {
  readonly at: string;
  readonly message: string;
}

/** Type-checks every example in one program: what is wrong, each at its source line. */
function compile(): Problem[] {
  const modules = [
    ...new Set(checked.flatMap((example) => [example.file, ...packagesOf(example.file).map((p) => p.file)])),
  ];
  // First the documented modules alone, for their exports; the second program reuses their parsed files.
  const first = ts.createProgram(
    modules.map((file) => join(ROOT, file)),
    options,
    hostWith(new Map()),
  );
  const exports = new Map(modules.map((file) => [file, exportsOf(first, file)]));

  const files = new Map(Object.entries(HOST_MODULES).map(([path, text]) => [join(HOST, path), text]));
  const preambles = new Map<DocExample, number>();
  for (const example of checked) {
    const taken = declaredNames(example.code);
    const lines: string[] = [];
    // The documented file by its absolute path: `./store.js` is the host's.
    const own = { specifier: join(ROOT, example.file).replace(/\.ts$/, '.js'), file: example.file };
    for (const module of [own, ...packagesOf(example.file)]) {
      const names = (exports.get(module.file) ?? []).filter((i) => !taken.has(i.name));
      for (const i of names) taken.add(i.name);
      if (names.length > 0)
        lines.push(
          `import { ${names.map((i) => (i.typeOnly ? `type ${i.name}` : i.name)).join(', ')} } from '${module.specifier}';`,
        );
    }
    // An example that imports nothing itself is still a module (top-level await, augmentation).
    lines.push('export {};');
    preambles.set(example, lines.length);
    files.set(fileOf(example), `${lines.join('\n')}\n${example.code}`);
  }

  const program = ts.createProgram([...files.keys()], options, hostWith(files));
  const problems: Problem[] = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map((d) => ({
    at: 'tsconfig',
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
  for (const example of checked) {
    const source = program.getSourceFile(fileOf(example));
    if (!source) throw new Error(`${example.file}:${example.line}: not in the program`);
    const skip = preambles.get(example)!;
    const lines = example.code.split('\n');
    const failing = new Set<number>();
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line - skip;
        problems.push({ at: `${example.file}:${example.line + line}`, message: 'an `any`: give the value its type' });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = (d.start === undefined ? skip : source.getLineAndCharacterOfPosition(d.start).line) - skip;
      failing.add(line);
      if (!/\/\/ compile error\b/.test(lines[line] ?? '')) {
        const at =
          line < 0 ? `${example.file}:${example.line} (its imports)` : `${example.file}:${example.line + line}`;
        problems.push({ at, message: `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}` });
      }
    }
    lines.forEach((text, line) => {
      if (/\/\/ compile error\b/.test(text) && !failing.has(line))
        problems.push({
          at: `${example.file}:${example.line + line}`,
          message: 'compiles, but the example says it is a compile error',
        });
    });
  }
  return problems;
}

describe('the @examples of the doc comments', () => {
  it('are read from doc comments only, each up to the next tag, a fence naming its language', () => {
    const text = [
      '/**',
      ' * A value.',
      ' *',
      ' * @example',
      ' * const a = 1;',
      ' *   const b = a;',
      ' *',
      ' * @example',
      ' * ```json',
      ' * { "data": null }',
      ' * ```',
      ' * @see elsewhere',
      ' */',
      'export const doc = `/** @example not(a, comment) */`;',
      '/* @example not a doc comment */',
    ].join('\n');
    expect(docExamples('x.ts', text)).toEqual([
      { file: 'x.ts', line: 5, code: 'const a = 1;\n  const b = a;\n', language: 'ts' },
      { file: 'x.ts', line: 10, code: '{ "data": null }\n', language: 'json' },
    ]);
  });

  it('are found in every package, and each is TypeScript or fenced as another language', () => {
    for (const dir of ['runtime/', 'integrations/kysely/', 'generator/']) {
      expect(checked.filter((example) => example.file.startsWith(dir)).length, dir).toBeGreaterThan(0);
    }
    // Every `@example` tag of the sources is one example read (none lost to the parser).
    const tags = ['runtime', 'integrations/kysely', 'generator']
      .flatMap((dir) => sourceFiles(dir))
      .reduce(
        (count, file) =>
          count +
          (ts.sys.readFile(join(ROOT, file)) ?? '').split('\n').filter((line) => /^\s*\*\s*@example\b/.test(line))
            .length,
        0,
      );
    expect(examples.length).toBe(tags);
  });

  it('compile, and the lines they call compile errors are', () => {
    expect(compile()).toEqual([]);
  }, 60_000);
});
