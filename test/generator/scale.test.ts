/**
 * The generator at scale (issue 27): the output of an N-resource schema (bench/generator/schema.ts:
 * every type reaches every other through includes) grows linearly, and its OpenAPI document is
 * valid with every `$ref` resolving; openapi-typescript turns it into types that compile.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaText } from '../../bench/generator/schema.js';
import { type Generation, generateFrom } from '../../generator/generate.js';
import { resourcesOf } from '../../generator/load.js';
import { TMP } from './fixtures.js';

const DIR = join(TMP, 'scale');

async function generateResources(n: number): Promise<Generation> {
  const dir = join(DIR, String(n));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'schema.ts');
  writeFileSync(file, schemaText(n));
  return generateFrom(resourcesOf(file, (await import(file)) as Record<string, unknown>), join(dir, 'generated'));
}

const bytes = (generation: Generation, path?: string) =>
  generation.files
    .filter((f) => path === undefined || f.path === path)
    .reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
const documentOf = (generation: Generation) =>
  JSON.parse(generation.files.find((f) => f.path === 'openapi.json')!.content);

/** Every `$ref` in `node`, with where it sits. */
function* refs(node: unknown, at = '#'): Generator<[string, string]> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* refs(item, `${at}/${i}`);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') yield [at, value];
      else yield* refs(value, `${at}/${key}`);
    }
  }
}

/** The value a local JSON pointer (`#/components/schemas/X`) names, or undefined. */
function resolvePointer(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined),
      document,
    );
}

describe('a schema of 100 resources', () => {
  let small: Generation;
  let large: Generation;
  beforeAll(async () => {
    small = await generateResources(20);
    large = await generateResources(100);
  }, 120_000);

  it('gives output that grows linearly with the resources: bytes(100) / bytes(20) < 6', () => {
    expect(bytes(large) / bytes(small)).toBeLessThan(6);
    expect(bytes(large, 'openapi.json') / bytes(small, 'openapi.json')).toBeLessThan(6);
    // Per resource, the document at 100 stays within 1.5× of the document at 20.
    expect(bytes(large, 'openapi.json') / 100).toBeLessThan(1.5 * (bytes(small, 'openapi.json') / 20));
  });

  it('lists fields[...] on a GET only for the types its response can hold, by reference', () => {
    const { paths, components } = documentOf(large);
    const parameters = paths['/r0050'].get.parameters as Array<{ $ref: string }>;
    const names = parameters.map(({ $ref }) => components.parameters[$ref.split('/').pop()!].name as string);
    // r0050 reaches its neighbours on the ring within the runtime's include depth (4): r0046-r0054.
    expect(names.filter((n) => n.startsWith('fields['))).toEqual(
      Array.from({ length: 9 }, (_, i) => `fields[r00${46 + i}]`),
    );
    expect(parameters.every((p) => Object.keys(p).length === 1 && p.$ref.startsWith('#/components/parameters/'))).toBe(
      true,
    );
  });

  it('has an OpenAPI document that is valid and whose every $ref resolves', async () => {
    const document = documentOf(large);
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    const unresolved = [...refs(document)].filter(([, ref]) => resolvePointer(document, ref) === undefined);
    expect(unresolved).toEqual([]);
    expect([...refs(document)].length).toBeGreaterThan(1000);
  });

  it('has a document openapi-typescript turns into types that compile', async () => {
    const types = astToString(await openapiTS(documentOf(small)));
    const file = 'api.d.ts';
    const host = ts.createCompilerHost({ strict: true, noEmit: true, skipLibCheck: false, types: [] });
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (name, version) =>
      name === file ? ts.createSourceFile(file, types, version) : read(name, version);
    const program = ts.createProgram([file], { strict: true, noEmit: true, types: [], lib: ['lib.es2022.d.ts'] }, host);
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    // Each parameter is named once, and operations point at it.
    expect(types).toContain(
      'R0005Fields: ("title" | "count" | "score" | "active" | "createdAt" | "next" | "previous")[];',
    );
    expect(types).toContain('"fields[r0005]"?: components["parameters"]["R0005Fields"];');
  }, 60_000);
});
