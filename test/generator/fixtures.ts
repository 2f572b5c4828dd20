/** Helpers of the generator tests: fixtures loaded in-process (vitest transpiles them). */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { type LoadedSchema, resourcesOf } from '../../generator/load.js';
import { type Generation, generateFrom } from '../../generator/generate.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = join(ROOT, 'fixtures');
export const TMP = join(ROOT, '.tmp', 'generator');

/** A fixture's schema file, by its path under `fixtures/`. */
export function fixtureFile(path: string): string {
  return join(FIXTURES, path);
}

export async function loadFixture(path: string): Promise<LoadedSchema> {
  const file = fixtureFile(path);
  return resourcesOf(file, (await import(file)) as Record<string, unknown>);
}

/** The generated output of `fixtures/<name>/schema.ts` for `outDir` (default: `fixtures/<name>/generated`). */
export async function generateFixture(name: string, outDir = join(FIXTURES, name, 'generated')): Promise<Generation> {
  return generateFrom(await loadFixture(`${name}/schema.ts`), outDir);
}

const generations = new Map<string, Promise<Generation>>();

/** `generateFixture`, once per test file. */
export function generated(name: string): Promise<Generation> {
  let generation = generations.get(name);
  if (!generation) generations.set(name, (generation = generateFixture(name)));
  return generation;
}

/** Every file of a generation in one text, for whole-output snapshots. */
export function concatenate(generation: Generation): string {
  return generation.files.map((f) => `==== ${f.path} ====\n${f.content}`).join('\n');
}

/**
 * `value` with every `{ $ref: '#/components/schemas/X' }` replaced by the schema it names, so a
 * test can read a parameter's schema whole (filters refer to their attribute's value schema). A
 * reference inside the schema it names (the recursive clause sets of filter groups) stays a reference.
 */
export function inlineSchemas<T>(value: T, schemas: Record<string, unknown>, within: readonly string[] = []): T {
  if (Array.isArray(value)) return value.map((item: unknown) => inlineSchemas(item, schemas, within)) as T;
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/') && !within.includes(ref))
    return inlineSchemas(schemas[ref.slice('#/components/schemas/'.length)] as T, schemas, [...within, ref]);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, inlineSchemas(item, schemas, within)]),
  ) as T;
}
