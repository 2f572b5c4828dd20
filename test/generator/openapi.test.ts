import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
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
      'withCount',
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
      'filter[commentCount]',
      'filter[tagCount]',
      'filter[search]',
      'filter[search][]',
      'page[offset]',
      'page[limit]',
      'page[size]',
      'page[after]',
      'page[before]',
      'filter[and]',
      'filter[or]',
      'filter[not]',
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
      'commentCount',
      '-commentCount',
      'tagCount',
      '-tagCount',
    ]);
    expect(byName.get('page[limit]')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 50, default: 20 });
    expect(byName.get('filter[author][]')).toMatchObject({
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string' } },
    });
    // The show of an article references the same components as its Index.
    expect(paths['/articles/{id}'].get.parameters).toEqual(refs.slice(0, 6));
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

describe('openapi.json: boolean groups, counts and withCount', () => {
  type Parameter = { name: string; style?: string; explode?: boolean; description?: string; schema: any };
  /** The parameters of an operation by name, their component schemas inlined. */
  const parametersOf = async (path: string) => {
    const { paths, components } = await documentOf('blog');
    const refs = (paths[path].get.parameters ?? []) as Array<{ $ref: string }>;
    return new Map(
      refs.map(({ $ref }) => {
        const parameter = inlineSchemas(
          components.parameters[$ref.replace('#/components/parameters/', '')] as Parameter,
          components.schemas,
        );
        return [parameter.name, parameter];
      }),
    );
  };

  it('lists withCount on GET collection, single and related with the countable relationships a response can hold', async () => {
    const all = ['articles', 'comments', 'tags'];
    for (const path of ['/articles', '/articles/{id}', '/people/{id}/articles', '/tags/{id}', '/comments']) {
      const withCount = (await parametersOf(path)).get('withCount');
      expect(withCount, path).toMatchObject({ style: 'form', explode: false });
      expect(withCount!.schema, path).toEqual({
        type: 'array',
        items: { type: 'string', enum: all },
        uniqueItems: true,
      });
    }
    // Counts go on resource objects: not on a relationship's linkage.
    expect((await parametersOf('/articles/{id}/relationships/tags')).has('withCount')).toBe(false);
    const minimal = JSON.stringify(await documentOf('minimal'));
    expect(minimal).not.toContain('"withCount"');
  });

  it('describes count filters with integer values and their operators, and count sorts in the sort enum', async () => {
    const byName = await parametersOf('/articles');
    expect(byName.get('filter[commentCount]')!.schema).toEqual({ type: 'integer' });
    for (const op of ['eq', 'ne', 'lt', 'lte', 'gt', 'gte'])
      expect(byName.get(`filter[commentCount][${op}]`)!.schema, op).toEqual({ type: 'integer' });
    // The server takes no list of counts (no `in`).
    expect(byName.has('filter[commentCount][]')).toBe(false);
    expect(byName.has('filter[commentCount][in]')).toBe(false);
    expect(byName.get('filter[tagCount][gte]')!.description).toContain('number of related `tags`');
    expect(byName.get('sort')!.schema.items.enum).toEqual(expect.arrayContaining(['commentCount', '-commentCount']));
    expect((await parametersOf('/people')).get('sort')!.schema.items.enum).toContain('-articleCount');
  });

  it('describes filter[and], filter[or] and filter[not] as deep objects of the leaf filters, nesting, with the limits', async () => {
    const byName = await parametersOf('/articles');
    for (const word of ['and', 'or', 'not']) {
      const group = byName.get(`filter[${word}]`)!;
      expect(group, word).toMatchObject({ style: 'deepObject', explode: true });
      expect(group.description, word).toContain('At most 32 clauses');
      expect(group.description, word).toContain('nested at most 6 deep');
    }
    const items = byName.get('filter[or]')!.schema;
    const clauses = items.additionalProperties;
    expect(Object.keys(clauses.properties)).toEqual([
      'title',
      'author',
      'status',
      'createdAt',
      'updatedAt',
      'author.name',
      'tags.name',
      'commentCount',
      'tagCount',
      'search',
      'and',
      'or',
      'not',
    ]);
    expect(clauses.additionalProperties).toBe(false);
    // Each leaf with its operators and their value schemas; nested groups refer back to the clause sets.
    expect(Object.keys(clauses.properties.title.anyOf[1].properties)).toEqual([
      'eq',
      'contains',
      'startsWith',
      'endsWith',
    ]);
    expect(clauses.properties.commentCount.anyOf[1].properties.gte).toEqual({ type: 'integer' });
    expect(clauses.properties.not).toEqual({ $ref: '#/components/schemas/ArticlesFilterClauses' });
    expect(byName.get('filter[not]')!.schema.properties.status).toBeDefined();
  });

  it('accepts in filter[or] the clause sets the server takes, and refuses unknown filters and operators', async () => {
    const document = { ...(await documentOf('blog')), $id: 'openapi' };
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(document);
    const validate = ajv.getSchema('openapi#/components/schemas/ArticlesFilterItems')!;
    // filter[or][0][status]=draft&filter[or][1][author.name][contains]=Ada&filter[or][2][not][commentCount][gte]=2
    const good = {
      0: { status: 'draft' },
      1: { 'author.name': { contains: 'Ada' } },
      2: { not: { commentCount: { gte: 2 } }, and: { 0: { title: 'a' } } },
    };
    expect(validate(good) ? [] : validate.errors).toEqual([]);
    for (const bad of [
      { 0: { nonsense: 'x' } },
      { 0: { title: { gte: 'a' } } },
      { 0: { commentCount: { gte: 'many' } } },
      { 0: { not: { status: 'archived' } } },
      {},
    ])
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
  });

  it('gives countable relationships an optional meta.count', async () => {
    const { components } = await documentOf('blog');
    const relationships = components.schemas.ArticlesRelationships.properties;
    expect(relationships.comments.properties.meta.properties.count).toMatchObject({ type: 'integer', minimum: 0 });
    expect(relationships.comments.required).toBeUndefined();
    expect(relationships.author.properties.meta).toBeUndefined();
  });
});
