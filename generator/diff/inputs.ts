/**
 * What `jsonapi-gen diff` compares: a schema file (loaded and checked as `build` does) or a
 * folder of generated output (its `schema.json`), and for `--against`, the same path at a git
 * ref. A schema read from git is written beside the working tree's (a hidden temporary file,
 * removed afterwards) so that its relative imports resolve.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import {
  type ApiDescription,
  API_DESCRIPTION,
  describeApi,
  parseApiDescription,
  readApiDescription,
} from '../api-description.js';
import { SchemaError } from '../errors.js';
import { checkSchema } from '../generate.js';
import { loadSchema } from '../load.js';
import { canonicalPath } from '../model.js';

/** An input that cannot be read: a path that is neither a schema file nor a folder, a git failure. */
export class InputError extends Error {
  override name = 'InputError';
}

/** Schema mistakes in a file read from git, formatted (the line quoted) while the file still existed. */
export class SchemaAtRefError extends Error {
  override name = 'SchemaAtRefError';
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Whether `path` is a folder; an `InputError` when it does not exist. */
function isFolder(path: string, what: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    throw new InputError(`${path} not found: give ${what}`);
  }
}

/** A schema file loaded and checked as `build` does (mistakes throw a located `SchemaError`), described. */
async function describeSchemaFile(file: string, shownAs: string): Promise<ApiDescription> {
  const loaded = await loadSchema(file);
  checkSchema(loaded);
  return describeApi(loaded, shownAs);
}

/**
 * The description of `path`: a folder's `schema.json`, or a schema file's own description.
 * Throws `SchemaError` (located, as `build` reports it) for a schema with mistakes, and
 * `InputError` for anything else unreadable.
 *
 * @example
 * const before = await describeInput('old/generated');
 * const after = await describeInput('src/schema.ts');
 */
export async function describeInput(path: string): Promise<ApiDescription> {
  const absolute = resolve(path);
  if (!isFolder(absolute, 'a schema file or a folder of generated output'))
    return describeSchemaFile(absolute, basename(absolute));
  try {
    return readApiDescription(absolute);
  } catch (error) {
    throw new InputError(reason(error));
  }
}

/** `git` in `cwd`, its stdout; an `InputError` with git's own message when it fails. */
function git(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    const said = typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim().split('\n')[0]! : reason(error);
    throw new InputError(`git ${args.join(' ')}: ${said}`);
  }
}

/**
 * The description of `path` as it was at git `ref`: for a schema file, the file at the ref,
 * written beside the working tree's and loaded from there (its relative imports are the
 * working tree's); for a folder of generated output, its `schema.json` at the ref.
 *
 * @example
 * const before = await describeAtRef('origin/main', 'src/schema.ts');
 */
export async function describeAtRef(ref: string, path: string): Promise<ApiDescription> {
  const absolute = canonicalPath(path);
  const folder = isFolder(absolute, "the working tree's schema file or folder of generated output");
  const dir = folder ? absolute : dirname(absolute);
  const top = canonicalPath(git(dir, ['rev-parse', '--show-toplevel']).trim());
  // git names files by their path from the top of the work tree, with forward slashes.
  const inRepo = relative(top, folder ? join(absolute, API_DESCRIPTION) : absolute)
    .split('\\')
    .join('/');
  const text = git(top, ['show', `${ref}:${inRepo}`]);
  const shown = `${ref}:${inRepo}`;
  if (folder) {
    try {
      return parseApiDescription(text, shown);
    } catch (error) {
      throw new InputError(reason(error));
    }
  }
  const extension = extname(absolute);
  const copy = join(dir, `.${basename(absolute, extension)}.at-${randomBytes(6).toString('hex')}${extension}`);
  writeFileSync(copy, text);
  try {
    return await describeSchemaFile(copy, basename(absolute));
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    // Formatted now, while the copy exists to quote; named as git names it, for the copy is gone after.
    const copyName = relative(process.cwd(), copy) || copy;
    throw new SchemaAtRefError(error.format().split(copyName).join(shown));
  } finally {
    rmSync(copy, { force: true });
  }
}
