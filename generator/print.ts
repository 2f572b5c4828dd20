/**
 * The printer: ts-morph structures become text once each, in an in-memory project, then
 * prettier formats every file with fixed options (never a host's config: output must be
 * byte-identical everywhere).
 */
import { format } from 'prettier';
import { type SourceFileStructure, printStructure } from 'ts-morph';
import { isOneLine } from './emit/helpers.js';

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

/**
 * A JSON file, laid out for small diffs: two-space indents, one member per line, and a final
 * newline (prettier would take seconds on a large document). Two kinds of object stay on one
 * line: those the emitters mark with `oneLine` (an attribute's value schema, so that a change to
 * one attribute changes one line wherever its schema appears:
 * `"title": { "type": "string", "maxLength": 200 }`), and an object with a single plain member
 * (`{ "$ref": "#/components/schemas/Meta" }`). Lists (field names, `required`, include paths)
 * keep one item per line, so adding one changes one line.
 */
export function printJson(path: string, value: unknown): OutputFile {
  const lines: string[] = [];
  writeJson(lines, '', '', value);
  return { path, content: lines.join('\n') + '\n' };
}

/** Appends `value`, its first line prefixed with `indent` and `head` (the key, if any), to `lines`. */
function writeJson(lines: string[], indent: string, head: string, value: unknown, comma = ''): void {
  if (value === null || typeof value !== 'object') {
    lines.push(indent + head + JSON.stringify(value) + comma);
    return;
  }
  const entries: Array<[string | null, unknown]> = Array.isArray(value)
    ? value.map((item: unknown) => [null, item])
    : Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function');
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    lines.push(indent + head + open + close + comma);
    return;
  }
  if (!Array.isArray(value) && (isOneLine(value) ? entries.every(([, v]) => isPlain(v)) : entries.length === 1 && isScalar(entries[0]![1]))) {
    lines.push(`${indent}${head}{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(', ')} }${comma}`);
    return;
  }
  lines.push(indent + head + open);
  const inner = indent + '  ';
  entries.forEach(([key, item], i) => {
    writeJson(lines, inner, key === null ? '' : JSON.stringify(key) + ': ', item, i < entries.length - 1 ? ',' : '');
  });
  lines.push(indent + close + comma);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/** A scalar, or a list of scalars (`["string", "null"]`). */
function isPlain(value: unknown): boolean {
  return isScalar(value) || (Array.isArray(value) && value.every(isScalar));
}

function inline(value: unknown): string {
  return Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value);
}

/** Formats arbitrary TypeScript text (stubs). */
export function formatTypeScript(text: string): Promise<string> {
  return format(text, { ...PRETTIER, parser: 'typescript' });
}
