/**
 * The pipeline: loaded schema → validation → IR → emitters → printer. Pure apart from reading
 * the schema file to locate mistakes; writing is `files.ts`'s job.
 */
import { apiDescriptionFile, describeApi } from './api-description.js';
import { SchemaError } from './errors.js';
import type { ApiModel } from './ir.js';
import { type LoadedSchema, loadSchema } from './load.js';
import { Locator } from './locate.js';
import { modelFor } from './model.js';
import { emitApi } from './emit/api.js';
import { CLIENT_FILE, emitClient } from './emit/client.js';
import { emitOpenApiModule } from './emit/openapi-module.js';
import { type OpenApiOptions, emitOpenApi } from './emit/openapi.js';
import { emitResource, resourceFile } from './emit/resource.js';
import { SUPPORT_FILE, emitSupport } from './emit/support.js';
import { type OutputFile, formatTypeScript, printJson, printTypeScript } from './print.js';
import { validate } from './validate.js';

export interface Generation {
  readonly model: ApiModel;
  /** Sorted by path. */
  readonly files: readonly OutputFile[];
}

/** Loads `schemaFile` and generates the output for `outDir`. */
export async function generate(schemaFile: string, outDir: string, options: OpenApiOptions = {}): Promise<Generation> {
  return generateFrom(await loadSchema(schemaFile), outDir, options);
}

/** Generates from an already loaded schema; throws `SchemaError` listing every mistake. */
export async function generateFrom(
  loaded: LoadedSchema,
  outDir: string,
  options: OpenApiOptions = {},
): Promise<Generation> {
  checkSchema(loaded);
  const model = modelFor(loaded, outDir);
  const openapi = emitOpenApi(model, options);
  const typescript = await printTypeScript([
    { path: 'index.ts', structure: emitApi(model) },
    { path: SUPPORT_FILE, structure: emitSupport(model) },
    ...model.resources.map((r) => ({ path: resourceFile(r), structure: emitResource(model, r) })),
  ]);
  // The document is data: printed by printJson, never through ts-morph or prettier.
  const json = printJson('openapi.json', openapi);
  const files = [
    ...typescript,
    json,
    { path: 'openapi.ts', content: emitOpenApiModule(model, json.content) },
    apiDescriptionFile(describeApi(loaded, model.schemaPath)),
    // Written as text: its fixed part (the Fetch transport) reads better so than as structures.
    { path: CLIENT_FILE, content: await formatTypeScript(emitClient(model)) },
  ];
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { model, files };
}

/** Throws a located `SchemaError` when the schema has mistakes. */
export function checkSchema(loaded: LoadedSchema): void {
  const issues = validate(loaded);
  if (issues.length === 0) return;
  const locator = new Locator(loaded.file);
  throw new SchemaError(
    issues.map(({ message, target }) => ({ file: loaded.file, message, ...locator.locate(target) })),
  );
}
