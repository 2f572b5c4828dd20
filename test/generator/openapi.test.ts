import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { generated, inlineSchemas } from './fixtures.js';

const documentOf = async (name: string) =>
  JSON.parse((await generated(name)).files.find((f) => f.path === 'openapi.json')!.content);

describe('openapi.json', () => {
  it.each(['minimal', 'blog', 'kitchen-sink'])('of fixtures/%s is a valid OpenAPI 3.1 document', async (name) => {
    const document = await documentOf(name);
    const result = await new Validator().validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every enabled endpoint of the blog, and nothing else', async () => {
    const { paths } = await documentOf('blog');
    const operations = Object.entries(paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((k) => k !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toContain('GET /articles');
    expect(operations).toContain('POST /articles');
    expect(operations).toContain('PATCH /articles/{id}');
    expect(operations).toContain('DELETE /articles/{id}');
    expect(operations).toContain('GET /articles/{id}/author');
    expect(operations).toContain('GET /articles/{id}/relationships/tags');
    // plus the writes on writable relationships: articles.author (PATCH), articles.tags (PATCH, POST, DELETE), comments.author, comments.article (PATCH)
    expect(operations).toHaveLength(4 * 5 + 2 * (3 + 2 + 1 + 1) + (1 + 3 + 1 + 1));
  });

  it('gives the Index its parameters, by reference: include, fields, sort, filters and bounded pagination', async () => {
    const { paths, components } = await documentOf('blog');
    const refs = paths['/articles'].get.parameters as Array<{ $ref: string }>;
    const parameters = refs.map(({ $ref }) =>
      inlineSchemas(
        components.parameters[$ref.replace('#/components/parameters/', '')] as {
          name: string;
          schema: Record<string, any>;
        },
        components.schemas,
      ),
    );
    const byName = new Map(parameters.map((p) => [p.name, p]));
    // Operator parameters (`filter[x][op]`) are checked below; the rest in order.
    expect([...byName.keys()].filter((name) => !/\]\[[A-Za-z]+\]$/.test(name))).toEqual([
      'include',
      'fields[articles]',
      'fields[comments]',
      'fields[people]',
      'fields[tags]',
      'sort',
      'filter[title]',
      'filter[title][]',
      'filter[author]',
      'filter[author][]',
      'filter[status]',
      'filter[status][]',
      'filter[createdAt]',
      'filter[createdAt][]',
      'filter[updatedAt]',
      'filter[updatedAt][]',
      'filter[author.name]',
      'filter[author.name][]',
      'filter[tags.name]',
      'filter[tags.name][]',
      'filter[search]',
      'filter[search][]',
      'page[offset]',
      'page[limit]',
      'page[size]',
      'page[after]',
      'page[before]',
    ]);
    expect(byName.get('page[size]')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 50, default: 20 });
    // Each operator a filter takes, with the schema of its value by the compared attribute's kind.
    const operators = (filter: string) =>
      [...byName.keys()]
        .filter((name) => name.startsWith(`filter[${filter}][`) && !name.endsWith('[]'))
        .map((name) => name.slice(filter.length + 9, -1));
    expect(operators('createdAt')).toEqual(['eq', 'ne', 'lt', 'lte', 'gt', 'gte']);
    expect(operators('title')).toEqual(['eq', 'contains', 'startsWith', 'endsWith']);
    expect(operators('author')).toEqual(['eq', 'in']);
    expect(operators('tags.name')).toEqual(['eq', 'in']);
    expect(operators('search')).toEqual([]);
    expect(byName.get('filter[createdAt][gte]')!.schema).toEqual({ type: 'string', format: 'date-time' });
    expect(byName.get('filter[status][in]')).toMatchObject({
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: ['draft', 'published'] } },
    });
    expect(byName.get('filter[author.name][contains]')!.schema).toEqual({ type: 'string' });
    expect(byName.get('include')!.schema.items.enum).toContain('comments.author');
    expect(byName.get('sort')!.schema.items.enum).toEqual([
      'title',
      '-title',
      'createdAt',
      '-createdAt',
      'updatedAt',
      '-updatedAt',
      'author.name',
      '-author.name',
    ]);
    expect(byName.get('page[limit]')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 50, default: 20 });
    expect(byName.get('filter[author][]')).toMatchObject({
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string' } },
    });
    // The show of an article references the same components as its Index.
    expect(paths['/articles/{id}'].get.parameters).toEqual(refs.slice(0, 5));
  });

  it('uses the JSON:API media type, request bodies for Create and Update, 201 and 204', async () => {
    const { paths, components } = await documentOf('blog');
    const create = paths['/articles'].post;
    expect(Object.keys(create.requestBody.content)).toEqual(['application/vnd.api+json']);
    expect(Object.keys(create.responses)).toContain('201');
    expect(paths['/articles/{id}'].delete.responses['204']).toBeDefined();
    expect(paths['/articles/{id}'].patch.requestBody.content['application/vnd.api+json'].schema).toEqual({
      $ref: '#/components/schemas/ArticlesUpdateRequest',
    });
    const createData = components.schemas.ArticlesCreateRequest.properties.data;
    expect(createData.properties.attributes.required).toEqual(['title']);
    expect(createData.properties.relationships.required).toEqual(['author']);
    expect(components.responses.Error.content['application/vnd.api+json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorDocument',
    });
  });
});
