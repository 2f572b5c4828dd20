/** Schema mistakes, reported with a position in the schema file instead of a stack trace. */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** One problem, at a 1-based line and column of `file` when known. */
export interface Problem {
  readonly file: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** Every problem found in a schema: the CLI prints them and exits 1. */
export class SchemaError extends Error {
  readonly problems: readonly Problem[];

  constructor(problems: readonly Problem[]) {
    super(problems.map((p) => p.message).join('; '));
    this.name = 'SchemaError';
    this.problems = problems;
  }

  /** `path:line:col - error: message`, the offending line quoted with a caret under the column. */
  format(cwd = process.cwd()): string {
    return this.problems.map((p) => formatProblem(p, cwd)).join('\n\n');
  }
}

export function formatProblem(problem: Problem, cwd = process.cwd()): string {
  const path = relative(cwd, problem.file) || problem.file;
  if (problem.line === undefined) return `${path} - error: ${problem.message}`;
  const column = problem.column ?? 1;
  const head = `${path}:${problem.line}:${column} - error: ${problem.message}`;
  let text: string | undefined;
  try {
    text = readFileSync(problem.file, 'utf8').split(/\r?\n/)[problem.line - 1];
  } catch {
    text = undefined;
  }
  if (text === undefined) return head;
  const gutter = String(problem.line);
  const pad = ' '.repeat(gutter.length);
  const caret = text.slice(0, column - 1).replace(/[^\t]/g, ' ') + '^';
  return `${head}\n\n  ${gutter} | ${text}\n  ${pad} | ${caret}`;
}
