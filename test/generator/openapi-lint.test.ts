/**
 * A second, independent check of the generated OpenAPI documents: Redocly's linter
 * (@redocly/openapi-core) with its recommended rules reports no error, and the attribute
 * constraints the schema declares reach the document.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { generateFrom } from '../../generator/generate.js';
import { resourcesOf } from '../../generator/load.js';
import { TMP, generated } from './fixtures.js';

const documentText = async (name: string) =>
  (await generated(name)).files.find((f) => f.path === 'openapi.json')!.content;

describe('openapi.json under Redocly lint (recommended rules)', () => {
  it.each(['minimal', 'blog', 'kitchen-sink'])('of fixtures/%s has no error', async (name) => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: await documentText(name),
      absoluteRef: `${name}/openapi.json`,
      config,
    });
    const errors = problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });
});

describe('attribute constraints in the JSON Schema', () => {
  it('describes what the server checks: lengths, pattern, bounds, enum values and formats', async () => {
    const dir = join(TMP, 'constraints');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'schema.ts');
    writeFileSync(
      file,
      `import { Attribute, Create, Show, defineResource } from 'jsonapi-gen';
export const books = defineResource({
  type: 'books',
  fields: [
    Attribute.make('title').type('string').minLength(1).maxLength(200).writable().required(),
    Attribute.make('isbn').type('string').pattern(/^[0-9-]{10,17}$/).nullable().writable(),
    Attribute.make('slug').type('string').pattern(/^[a-z]+$/i).writable(),
    Attribute.make('pages').type('integer').min(1).max(10000).writable(),
    Attribute.make('format').type('enum', ['paper', 'ebook']).writable(),
    Attribute.make('published').type('date'),
  ],
  endpoints: [Show.make(), Create.make()],
});
`,
    );
    const generation = await generateFrom(
      resourcesOf(file, (await import(file)) as Record<string, unknown>),
      join(dir, 'generated'),
    );
    const document = JSON.parse(generation.files.find((f) => f.path === 'openapi.json')!.content);
    expect(document.components.schemas.BooksAttributes.properties).toEqual({
      title: { type: 'string', minLength: 1, maxLength: 200 },
      isbn: { type: ['string', 'null'], pattern: '^[0-9-]{10,17}$' },
      // A case-insensitive pattern has no JSON Schema form: left out rather than described wrongly.
      slug: { type: 'string' },
      pages: { type: 'integer', minimum: 1, maximum: 10000 },
      format: { type: 'string', enum: ['paper', 'ebook'] },
      published: { type: 'string', format: 'date' },
    });
    // The request body of Create says the same.
    expect(
      document.components.schemas.BooksCreateRequest.properties.data.properties.attributes.properties.title,
    ).toEqual({ type: 'string', minLength: 1, maxLength: 200 });
  });
});
