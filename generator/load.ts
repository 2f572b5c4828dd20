/**
 * Loading a schema file: a TypeScript module imported as it is, through tsx's `tsImport`
 * (esbuild transpilation, no type-check, honours the nearest tsconfig's `paths`), so the host
 * needs no build step. The generator reads the loaded resources only through the runtime: its
 * rules (`schemaIssues`) and its description of each (`describeSchema`, plain data). Both read
 * declarations by property, so a schema that imported another copy of the runtime (the host's,
 * through tsx) than the generator's own reads the same.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Extension, ResourceSchema } from 'jsonapi-gen';
import { isResourceSchema } from 'jsonapi-gen/internal';
import { type Problem, SchemaError } from './errors.js';

export interface LoadedResource {
  /** The name the schema file exports it under. */
  readonly exportName: string;
  readonly schema: ResourceSchema;
}

/** What the generator keeps of an extension: its URI and where it is served. */
export type LoadedExtension = Pick<Extension, 'uri' | 'path'>;

export interface LoadedSchema {
  /** Absolute path of the schema file. */
  readonly file: string;
  /** In export-name order. */
  readonly resources: readonly LoadedResource[];
  /**
   * What the schema exports as `extensions` (such as `[atomic()]`): the API's extensions, for
   * the OpenAPI document and as the default of the generated `createApi`. Undefined when the
   * schema exports none.
   */
  readonly extensions?: readonly LoadedExtension[];
}

/** Whether `value` looks like an extension (`{ uri, path, handle }`). */
export function isExtension(value: unknown): value is LoadedExtension {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.uri === 'string' && typeof v.path === 'string' && v.path.startsWith('/');
}

/** The resources a module namespace exports, by export name, and its `extensions` export. */
export function resourcesOf(file: string, namespace: Record<string, unknown>): LoadedSchema {
  const resources = Object.keys(namespace)
    .sort()
    .flatMap((exportName) => {
      const value = namespace[exportName];
      return isResourceSchema(value) ? [{ exportName, schema: value }] : [];
    });
  if (!('extensions' in namespace)) return { file, resources };
  const extensions = namespace.extensions;
  if (!Array.isArray(extensions) || !extensions.every(isExtension)) {
    throw new SchemaError([
      { file, message: 'the "extensions" export must be an array of extensions, such as [atomic()]' },
    ]);
  }
  return { file, resources, extensions: extensions.map((e) => ({ uri: e.uri, path: e.path })) };
}

/** The nearest tsconfig.json at or above `directory`, if any. */
export function findTsconfig(directory: string): string | undefined {
  for (let dir = directory; ; dir = dirname(dir)) {
    const candidate = join(dir, 'tsconfig.json');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Imports the schema file and collects its resources. Throws `SchemaError` when it cannot. */
export async function loadSchema(path: string): Promise<LoadedSchema> {
  const file = resolve(path);
  if (!existsSync(file)) throw new SchemaError([{ file, message: `schema file not found: ${path}` }]);
  const { tsImport } = await import('tsx/esm/api');
  const tsconfig = findTsconfig(dirname(file));
  // Stack positions of errors thrown while loading must be the schema file's, not esbuild's output.
  process.setSourceMapsEnabled(true);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await tsImport(pathToFileURL(file).href, {
      parentURL: import.meta.url,
      ...(tsconfig !== undefined && { tsconfig }),
    })) as Record<string, unknown>;
  } catch (error) {
    const syntax = syntaxProblems(error, file);
    if (syntax.length > 0) throw new SchemaError(syntax);
    throw new SchemaError([
      { file, message: `cannot load the schema: ${describe(error)}`, ...positionInStack(error, file) },
    ]);
  }
  const loaded = resourcesOf(file, namespace);
  if (loaded.resources.length === 0) {
    throw new SchemaError([{ file, message: 'the schema exports no resource (export the results of defineResource)' }]);
  }
  return loaded;
}

/** The first line of an error's message: the rest of a thrown error's message is usually its stack. */
function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/**
 * Every syntax error esbuild reported while transpiling a file of the schema (the schema or a
 * module it imports), each at its file, line and column, so that the formatter quotes the line;
 * none when the error is not esbuild's. The error crosses a worker thread on its way here and
 * keeps only its message, whose lines read `file:line:column: ERROR: text` (column 0-based).
 */
function syntaxProblems(error: unknown, schema: string): Problem[] {
  if (!(error instanceof Error) || !/^Transform failed with \d+ errors?:/.test(error.message)) return [];
  return error.message.split('\n').flatMap((line) => {
    const match = /^(.+):(\d+):(\d+): ERROR: (.*)$/.exec(line);
    if (!match) return [];
    const [, file, row, column, text] = match;
    return [
      {
        file: resolve(dirname(schema), file!),
        message: `syntax error: ${text}`,
        line: Number(row),
        column: Number(column) + 1,
      },
    ];
  });
}

/** Where in `file` the error was thrown, from its stack, when the stack says. */
function positionInStack(error: unknown, file: string): { line?: number; column?: number } {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const url = pathToFileURL(file).href;
  for (const frame of stack.split('\n')) {
    const at =
      frame.indexOf(url) >= 0
        ? frame.indexOf(url) + url.length
        : frame.indexOf(file) >= 0
          ? frame.indexOf(file) + file.length
          : -1;
    if (at < 0) continue;
    const match = /^(?:\?[^:]*)?:(\d+):(\d+)/.exec(frame.slice(at));
    if (match) return { line: Number(match[1]), column: Number(match[2]) };
  }
  return {};
}
