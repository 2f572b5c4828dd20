/**
 * The OpenAPI document of the write path: request bodies and responses of every write and
 * relationship endpoint, errors per status, and `POST /operations` when the schema exports
 * `extensions = [atomic()]` (examples/blog/schema.ts); the generated `createApi` uses them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { generateFrom } from '../../generator/generate.js';
import { resourcesOf } from '../../generator/load.js';
import { ROOT, generated } from './fixtures.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = `${JSONAPI}; ext="https://jsonapi.org/ext/atomic"`;

const demoFile = join(ROOT, 'examples/blog/schema.ts');
const demo = async () =>
  generateFrom(
    resourcesOf(demoFile, (await import(demoFile)) as Record<string, unknown>),
    join(ROOT, 'examples/blog/generated'),
  );
const documentOf = (files: ReadonlyArray<{ path: string; content: string }>) =>
  JSON.parse(files.find((f) => f.path === 'openapi.json')!.content);

describe('openapi.json: the write path', () => {
  it('describes PATCH on every writable relationship, POST and DELETE on writable to-many ones only', async () => {
    const { paths } = documentOf((await generated('blog')).files);
    expect(Object.keys(paths['/articles/{id}/relationships/tags']).sort()).toEqual([
      'delete',
      'get',
      'parameters',
      'patch',
      'post',
    ]);
    expect(Object.keys(paths['/articles/{id}/relationships/author']).sort()).toEqual(['get', 'parameters', 'patch']);
    expect(Object.keys(paths['/articles/{id}/relationships/comments']).sort()).toEqual(['get', 'parameters']);
    expect(Object.keys(paths['/tags/{id}/relationships/articles']).sort()).toEqual(['get', 'parameters']);

    const add = paths['/articles/{id}/relationships/tags'].post;
    expect(add.requestBody.content[JSONAPI].schema).toMatchObject({
      required: ['data'],
      properties: { data: { type: 'array', items: { $ref: '#/components/schemas/TagsIdentifier' } } },
    });
    expect(add.responses['204']).toBeDefined();
    // a required to-one cannot be cleared: no null in its body
    const author =
      paths['/articles/{id}/relationships/author'].patch.requestBody.content[JSONAPI].schema.properties.data;
    expect(author).toEqual({ $ref: '#/components/schemas/PeopleIdentifier' });
  });

  it('answers each write error status with its own errors-document response', async () => {
    const { paths, components } = documentOf((await generated('blog')).files);
    const statuses = (operation: { responses: Record<string, unknown> }) => Object.keys(operation.responses).sort();
    expect(statuses(paths['/articles'].post)).toEqual([
      '201',
      '400',
      '403',
      '404',
      '406',
      '409',
      '413',
      '415',
      '422',
      '500',
    ]);
    expect(paths['/articles'].post.responses['201'].headers.Location).toBeDefined();
    expect(statuses(paths['/articles/{id}'].patch)).toEqual([
      '200',
      '400',
      '403',
      '404',
      '406',
      '409',
      '413',
      '415',
      '422',
      '500',
    ]);
    expect(statuses(paths['/articles/{id}'].delete)).toEqual(['204', '400', '403', '404', '406', '500']);
    expect(statuses(paths['/articles/{id}/relationships/tags'].delete)).toEqual([
      '204',
      '400',
      '403',
      '404',
      '406',
      '409',
      '413',
      '415',
      '422',
      '500',
    ]);
    expect(paths['/articles'].post.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    expect(paths['/articles'].post.responses['422']).toEqual({ $ref: '#/components/responses/UnprocessableContent' });
    for (const name of [
      'BadRequest',
      'Forbidden',
      'NotFound',
      'Conflict',
      'UnsupportedMediaType',
      'UnprocessableContent',
      'Error',
    ]) {
      expect(components.responses[name].content[JSONAPI].schema, name).toEqual({
        $ref: '#/components/schemas/ErrorDocument',
      });
    }
  });

  it('has no /operations unless the schema exports the extension', async () => {
    const { paths } = documentOf((await generated('blog')).files);
    expect(paths['/operations']).toBeUndefined();
  });
});

describe('the blog demo schema with extensions = [atomic()]', () => {
  it('documents POST /operations with the ext media type, and is a valid OpenAPI 3.1 document', async () => {
    const generation = await demo();
    expect(generation.model.extensions).toEqual({
      exported: true,
      atomic: { uri: 'https://jsonapi.org/ext/atomic', path: '/operations' },
    });
    const document = documentOf(generation.files);
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    const post = document.paths['/operations'].post;
    expect(Object.keys(document.paths['/operations'])).toEqual(['post']);
    expect(post.requestBody.content[ATOMIC].schema).toEqual({ $ref: '#/components/schemas/AtomicOperationsDocument' });
    expect(post.responses['200'].content[ATOMIC].schema).toEqual({
      $ref: '#/components/schemas/AtomicResultsDocument',
    });
    expect(post.responses['204']).toBeDefined();
    expect(Object.keys(post.responses).sort()).toEqual([
      '200',
      '204',
      '400',
      '403',
      '404',
      '406',
      '409',
      '413',
      '415',
      '422',
      '500',
    ]);
    const operation = document.components.schemas.AtomicOperation;
    expect(operation.properties.op.enum).toEqual(['add', 'update', 'remove']);
    expect(operation.not).toEqual({ required: ['ref', 'href'] });
  });

  it('is what examples/blog/generated holds, and its createApi defaults to the schema extensions', async () => {
    const generation = await demo();
    for (const file of generation.files) {
      expect(readFileSync(join(ROOT, 'examples/blog/generated', file.path), 'utf8'), file.path).toBe(file.content);
    }
    const index = generation.files.find((f) => f.path === 'index.ts')!.content;
    expect(index).toContain("import { extensions as schemaExtensions } from '../schema.js';");
    expect(index).toContain('new JsonApi({ ...options, extensions: options?.extensions ?? schemaExtensions })');
  });

  it('refuses an extensions export that is not a list of extensions', () => {
    expect(() => resourcesOf(demoFile, { extensions: 'atomic' })).toThrow(/"extensions" export must be an array/);
    expect(() => resourcesOf(demoFile, { extensions: [{ uri: 'x' }] })).toThrow(/"extensions" export/);
  });
});
