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
export async function printTypeScript(
  files: ReadonlyArray<{ path: string; structure: SourceFileStructure }>,
): Promise<OutputFile[]> {
  const output: OutputFile[] = [];
  for (const { path, structure } of files) {
    output.push({ path, content: await format(printStructure(structure, PRINT), { ...PRETTIER, parser: 'babel-ts' }) });
  }
  return output;
}

/**
 * A JSON file, laid out for small diffs: two-space indents, one member per line, and a final
 * newline. Two kinds of object stay on one line: those the emitters mark with `oneLine` (an
 * attribute's value schema, so that a change to one attribute changes one line wherever its
 * schema appears: `"title": { "type": "string", "maxLength": 200 }`), and an object with a single
 * plain member (`{ "$ref": "#/components/schemas/Meta" }`). Lists (field names, `required`,
 * include paths) keep one item per line, so adding one changes one line.
 *
 * `JSON.stringify` does the work (prettier, or a printer in JavaScript, takes seconds on the
 * document of hundreds of resources): marked objects become placeholders, replaced afterwards.
 */
export function printJson(path: string, value: unknown): OutputFile {
  const inline: string[] = [];
  let placeholderInData = false;
  const text = JSON.stringify(
    value,
    (_key, member: unknown) => {
      if (typeof member === 'string') {
        if (member.includes(PLACEHOLDER)) placeholderInData = true;
      } else if (
        typeof member === 'object' &&
        member !== null &&
        isOneLine(member) &&
        Object.values(member).every(isPlain)
      ) {
        inline.push(
          `{ ${Object.entries(member)
            .map(([k, v]) => `${JSON.stringify(k)}: ${plainText(v)}`)
            .join(', ')} }`,
        );
        return PLACEHOLDER + (inline.length - 1);
      }
      return member;
    },
    2,
  );
  // A string of the document containing the placeholder character would be mistaken for one: then no object is inlined.
  const laidOut = placeholderInData
    ? JSON.stringify(value, null, 2)
    : text.replace(PLACEHOLDERS, (_, i: string) => inline[Number(i)]!);
  return { path, content: laidOut.replace(SINGLE_MEMBER, '{ $1 }') + '\n' };
}

/** A private-use character: never in a generated document's own strings. */
const PLACEHOLDER = '\uE000';
const PLACEHOLDERS = /"\uE000(\d+)"/g;
/** `{`, one member whose value is a string, number, boolean or null, `}`, as `JSON.stringify` lays it out. */
const SINGLE_MEMBER = /\{\n *("(?:[^"\\\n]|\\.)*": (?:"(?:[^"\\\n]|\\.)*"|true|false|null|-?\d[\d.eE+-]*))\n *\}/g;

function isScalar(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && value !== undefined);
}

/** A scalar, or a list of scalars (`["string", "null"]`). */
function isPlain(value: unknown): boolean {
  return isScalar(value) || (Array.isArray(value) && value.every(isScalar));
}

function plainText(value: unknown): string {
  return Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : JSON.stringify(value);
}

/** Formats arbitrary TypeScript text (stubs). */
export function formatTypeScript(text: string): Promise<string> {
  return format(text, { ...PRETTIER, parser: 'typescript' });
}
