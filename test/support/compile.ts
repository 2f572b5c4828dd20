/**
 * Type tests of host code: small programs written into the repository (`.tmp/`, so the
 * tsconfig's `paths` serve `jsonapi-gen`, `jsonapi-gen/node` and `@jsonapi-gen/kysely` from
 * their sources), type-checked in one program with the repository's compiler options.
 *
 * @example
 * const errors = compileHosts('.tmp/attribute-types', { 'good.ts': '...', 'typo.ts': '... // error: memberID' });
 * errors.get('typo.ts'); // ['3: Object literal may only specify known properties, ...']
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const ROOT = new URL('../../', import.meta.url).pathname;

/** The repository's compiler options, without output. */
export function repositoryOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT).options, noEmit: true };
}

/**
 * Writes `files` (name → text) into `dir` (relative to the repository) and type-checks them
 * together: the errors of each file (those of other files are not judged), each as
 * "line: message" (the message's first line), in the order the compiler reports them.
 */
export function compileHosts(dir: string, files: Record<string, string>): Map<string, string[]> {
  const root = join(ROOT, dir);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((name) => join(root, name)),
    repositoryOptions(),
  );
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file ? relative(root, d.file.fileName) : '(global)';
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0];
    errors.set(file, [...(errors.get(file) ?? []), `${line}: ${message}`]);
  }
  return errors;
}

/** The line (1-based) of `text` that carries the `// error:` marker. */
export function markedLine(text: string): number {
  return text.split('\n').findIndex((line) => line.includes('// error:')) + 1;
}
