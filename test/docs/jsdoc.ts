/**
 * Reading the `@example`s of the packages' doc comments, each with the source line it starts on
 * so a failure names the line to fix. Comments are found as the compiler finds them (comment
 * trivia of the syntax tree), so a `/**` inside a string or template, such as the doc
 * comments the generator prints, is not one.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { ROOT } from './readme.js';

/** The packages' source folders whose doc comments are read (tests and templates aside). */
export const PACKAGES = ['runtime', 'integrations/kysely', 'generator'] as const;

export interface DocExample {
  /** The source file, relative to the repository. */
  readonly file: string;
  /** 1-based line of the example's first line of code in the source file. */
  readonly line: number;
  /** The code, without the comment's ` * ` margin; a ```ts fence around it is dropped. */
  readonly code: string;
  /** The language of a fence the example opens with (`json`, `sql`, ...); `ts` when unfenced. */
  readonly language: string;
}

/** The package's source files: `.ts`, not tests, not under templates/, node_modules/ or dist/. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ['node_modules', 'dist', 'templates'].includes(entry.name) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

/** The text and start of every `/** ... *\/` comment of `source`, in order. */
function docComments(source: ts.SourceFile): { text: string; pos: number }[] {
  const seen = new Map<number, string>();
  const visit = (node: ts.Node) => {
    for (const range of ts.getLeadingCommentRanges(source.text, node.pos) ?? []) {
      const text = source.text.slice(range.pos, range.end);
      if (range.kind === ts.SyntaxKind.MultiLineCommentTrivia && text.startsWith('/**')) seen.set(range.pos, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // The end-of-file token carries the comments after the last statement.
  visit(source.endOfFileToken);
  return [...seen].sort(([a], [b]) => a - b).map(([pos, text]) => ({ text, pos }));
}

const FENCE = /^```\s*([\w-]*)\s*$/;

/** Every `@example` of `file` (its text: `text`): its lines up to the next tag or the comment's end. */
export function docExamples(file: string, text = readFileSync(join(ROOT, file), 'utf8')): DocExample[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const examples: DocExample[] = [];
  for (const comment of docComments(source)) {
    const first = source.getLineAndCharacterOfPosition(comment.pos).line + 1;
    // Each line without the comment's delimiters and its ` * ` margin.
    const lines = comment.text
      .replace(/^\/\*\*/, '')
      .replace(/\*\/$/, '')
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, '').trimEnd());
    for (let i = 0; i < lines.length; i++) {
      const tag = /^\s*@example\b\s*(.*)$/.exec(lines[i]!);
      if (!tag) continue;
      const body: { text: string; line: number }[] = [];
      if (tag[1]) body.push({ text: tag[1], line: first + i });
      let j = i + 1;
      for (; j < lines.length && !/^\s*@\w/.test(lines[j]!); j++) body.push({ text: lines[j]!, line: first + j });
      i = j - 1;
      while (body.length > 0 && body[0]!.text.trim() === '') body.shift();
      while (body.length > 0 && body[body.length - 1]!.text.trim() === '') body.pop();
      if (body.length === 0) throw new Error(`${file}:${first + i}: an empty @example`);
      let language = 'ts';
      const fence = FENCE.exec(body[0]!.text.trim());
      if (fence) {
        if (body.length < 2 || body[body.length - 1]!.text.trim() !== '```')
          throw new Error(`${file}:${body[0]!.line}: the example's fence never closes`);
        language = fence[1] || 'text';
        body.shift();
        body.pop();
      }
      if (language === 'typescript') language = 'ts';
      examples.push({ file, line: body[0]!.line, code: `${body.map((l) => l.text).join('\n')}\n`, language });
    }
  }
  return examples;
}

/** Every `@example` of the packages' sources. */
export function allDocExamples(): DocExample[] {
  return PACKAGES.flatMap((dir) => sourceFiles(dir)).flatMap((file) => docExamples(file));
}

/** `file` (relative to the repository) as a module specifier from `dir` (absolute). */
export function specifierOf(dir: string, file: string): string {
  const path = relative(dir, join(ROOT, file)).split('\\').join('/').replace(/\.ts$/, '.js');
  return path.startsWith('.') ? path : `./${path}`;
}
