/**
 * The printer: ts-morph structures become text once each, in an in-memory project, then
 * prettier formats every file with fixed options (never a host's config: output must be
 * byte-identical everywhere).
 */
import { format } from 'prettier';
import { Project, type SourceFileStructure } from 'ts-morph';

const PRETTIER = { singleQuote: true, printWidth: 120, trailingComma: 'all', endOfLine: 'lf' } as const;

export interface OutputFile {
  /** Relative to the output directory, with `/`. */
  readonly path: string;
  readonly content: string;
}

/** Prints and formats TypeScript files from structures. */
export async function printTypeScript(files: ReadonlyArray<{ path: string; structure: SourceFileStructure }>): Promise<OutputFile[]> {
  const project = new Project({ useInMemoryFileSystem: true });
  const printed = files.map(({ path, structure }) => ({ path, text: project.createSourceFile(`/out/${path}`, structure).getFullText() }));
  return Promise.all(printed.map(async ({ path, text }) => ({ path, content: await format(text, { ...PRETTIER, parser: 'typescript' }) })));
}

/** A JSON file: `JSON.stringify` with two-space indents and a final newline (prettier would take seconds on a large document). */
export function printJson(path: string, value: unknown): OutputFile {
  return { path, content: JSON.stringify(value, null, 2) + '\n' };
}

/** Formats arbitrary TypeScript text (stubs). */
export function formatTypeScript(text: string): Promise<string> {
  return format(text, { ...PRETTIER, parser: 'typescript' });
}
