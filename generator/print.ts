/**
 * The printer: ts-morph structures become text once each, in an in-memory project, then
 * prettier formats every file with fixed options (never a host's config: output must be
 * byte-identical everywhere).
 */
import { format } from 'prettier';
import { type SourceFileStructure, printStructure } from 'ts-morph';

const PRETTIER = { singleQuote: true, printWidth: 120, trailingComma: 'all', endOfLine: 'lf' } as const;
const PRINT = { indentNumberOfSpaces: 2, useSingleQuote: true } as const;

export interface OutputFile {
  /** Relative to the output directory, with `/`. */
  readonly path: string;
  readonly content: string;
}

/**
 * Prints and formats TypeScript files from structures: `printStructure` writes each as text
 * without parsing it (no ts-morph project), and prettier lays it out. Prettier parses with
 * `babel-ts`: the same output as its `typescript` parser for the code generated here, in about
 * two thirds of the time.
 */
export async function printTypeScript(files: ReadonlyArray<{ path: string; structure: SourceFileStructure }>): Promise<OutputFile[]> {
  const output: OutputFile[] = [];
  for (const { path, structure } of files) {
    output.push({ path, content: await format(printStructure(structure, PRINT), { ...PRETTIER, parser: 'babel-ts' }) });
  }
  return output;
}

/** A JSON file: `JSON.stringify` with two-space indents and a final newline (prettier would take seconds on a large document). */
export function printJson(path: string, value: unknown): OutputFile {
  return { path, content: JSON.stringify(value, null, 2) + '\n' };
}

/** Formats arbitrary TypeScript text (stubs). */
export function formatTypeScript(text: string): Promise<string> {
  return format(text, { ...PRETTIER, parser: 'typescript' });
}
