/**
 * The first compile error of a program in which one file of the repository reads another text:
 * how the mapping-errors tests put a mistake into a store's mapping and find where TypeScript
 * reports it, reusing the program of the correct text so that each mistake compiles quickly.
 */
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = new URL('../../', import.meta.url).pathname;

/** What a program is compiled with, and the previous program to reuse. */
export interface CompileBase {
  options: ts.CompilerOptions;
  old?: ts.Program;
}

/** The repository's compiler options (tsconfig.json), emitting nothing. */
export function repositoryOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options, noEmit: true };
}

/**
 * The first error of a program whose root `file` reads `text`, as "path:line: message" (the
 * path relative to the repository), or undefined; and the program, to reuse.
 *
 * @example
 * const base = { options: repositoryOptions() };
 * firstError(join(ROOT, 'examples/blog/store.ts'), text, base).error; // 'examples/blog/store.ts:57: Type ...'
 */
export function firstError(
  file: string,
  text: string,
  base: CompileBase,
): { error: string | undefined; program: ts.Program } {
  const host = ts.createCompilerHost(base.options);
  const read = host.readFile.bind(host);
  host.readFile = (path) => (path === file ? text : read(path));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (path, language, onError, create) =>
    path === file ? ts.createSourceFile(path, text, language) : getSourceFile(path, language, onError, create);
  const program = ts.createProgram({
    rootNames: [file],
    options: base.options,
    host,
    ...(base.old && { oldProgram: base.old }),
  });
  const [d] = ts.getPreEmitDiagnostics(program);
  if (!d) return { error: undefined, program };
  const where =
    d.file && d.start !== undefined
      ? `${relative(ROOT, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
      : '(global)';
  return { error: `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`, program };
}

/** The first line of an error `firstError` gave, after its "path:line: " prefix. */
export function firstLine(error: string | undefined): string | undefined {
  return error?.split('\n')[0]!.replace(/^[^ ]+: /, '');
}
