/**
 * `jsonapi-gen diff OLD NEW` and `jsonapi-gen diff --against REF PATH`: every change between two
 * versions of an API, grouped as breaking and non-breaking, and the semver verdict. Exit codes:
 * 1 when a change is breaking (unless `--allow-breaking`), 0 otherwise, 2 when the inputs
 * cannot be read or the invocation is wrong.
 */
import { SchemaError } from '../errors.js';
import { type Io, styleProblems } from '../output.js';
import { type Change, report, verdict } from './changes.js';
import { compareApis } from './compare.js';
import { InputError, SchemaAtRefError, describeAtRef, describeInput } from './inputs.js';

export interface DiffOptions {
  /** Compare `PATH` in the working tree with the same path at this git ref. */
  against?: string;
  /** Print `{ verdict, changes }` as JSON instead of lines. */
  json?: boolean;
  /** Exit 0 even when a change is breaking. */
  allowBreaking?: boolean;
}

/** The exit code of a bad invocation or an unreadable input. */
export const USAGE_ERROR = 2;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Runs `diff` with its positional arguments; returns the exit code. Schema mistakes print as
 * `build` prints them (`file:line:col`, the line quoted).
 *
 * @example
 * import { streamIo } from '../output.js';
 * process.exitCode = await diff(['old/generated', 'src/schema.ts'], { json: true }, streamIo());
 */
export async function diff(paths: readonly string[], options: DiffOptions, io: Io): Promise<number> {
  const e = io.errStyle;
  const fail = (text: string) => {
    io.err(`${e.bold('jsonapi-gen')}: ${e.red('error')}: ${text}`);
    return USAGE_ERROR;
  };
  if (options.against !== undefined ? paths.length !== 1 : paths.length !== 2)
    return fail(
      options.against !== undefined
        ? `diff --against <ref> takes one path (the schema file or generated folder), not ${paths.length}`
        : `diff takes two paths, OLD and NEW (or --against <ref> and one path), not ${paths.length}`,
    );
  let changes: Change[];
  try {
    const [before, after] =
      options.against !== undefined
        ? [await describeAtRef(options.against, paths[0]!), await describeInput(paths[0]!)]
        : [await describeInput(paths[0]!), await describeInput(paths[1]!)];
    changes = compareApis(before, after);
  } catch (error) {
    if (error instanceof SchemaError) {
      io.err(styleProblems(error.format(), e));
      return USAGE_ERROR;
    }
    if (error instanceof SchemaAtRefError) {
      io.err(styleProblems(error.message, e));
      return USAGE_ERROR;
    }
    if (error instanceof InputError) return fail(error.message);
    throw error;
  }
  const breaking = changes.some((c) => c.level === 'major');
  if (options.json) io.out(JSON.stringify(report(changes)));
  else printChanges(changes, io);
  return breaking && !options.allowBreaking ? 1 : 0;
}

/** The changes as lines for people: a summary with the verdict, then each group. */
function printChanges(changes: readonly Change[], io: Io): void {
  const { bold, red, green, dim } = io.outStyle;
  const major = changes.filter((c) => c.level === 'major');
  const other = changes.filter((c) => c.level !== 'major');
  const result = verdict(changes);
  const summary =
    changes.length === 0
      ? 'no changes'
      : `${plural(major.length, 'breaking change')}, ${plural(other.length, 'non-breaking change')}`;
  io.out(`${bold('jsonapi-gen')}: ${summary}; verdict: ${bold(result === 'major' ? red(result) : result)}`);
  const line = (c: Change) => `  ${c.path}: ${c.message} ${dim(`(${c.kind})`)}`;
  if (major.length > 0) {
    io.out(red('Breaking:'));
    for (const c of major) io.out(line(c));
  }
  if (other.length > 0) {
    io.out(green('Non-breaking:'));
    for (const c of other) io.out(line(c) + (c.level === 'patch' ? dim(' [patch]') : ''));
  }
}
