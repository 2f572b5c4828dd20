import { describe, expect, it } from 'vitest';
import {
  Attribute,
  Create,
  Delete,
  Index,
  JsonApi,
  Show,
  ToMany,
  ToOne,
  Update,
  defineResource,
  type ResourceDefinition,
  type StandardSchema,
} from 'jsonapi-gen';
import { json } from '../support/validate.js';

type Row = Record<string, unknown> & { id: number };

/** A tiny relational store in memory: tables of rows, an article_tags join, snapshots for rollback. */
function store() {
  const tables: Record<string, Row[]> = {
    people: [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
    ],
    articles: [{ id: 1, title: 'First', body: null, status: 'draft', authorId: 1, views: 0, publishedOn: null }],
    tags: [
      { id: 1, name: 'news' },
      { id: 2, name: 'tech' },
    ],
  };
  let articleTags: Array<[number, number]> = [[1, 1]];
  let failOn: string | undefined;
  const api = new JsonApi({
    onError: () => {},
    // All-or-nothing writes over the in-memory tables: restore the snapshot when anything fails.
    transaction: async (run) => {
      const saved = structuredClone({ tables, articleTags });
      try {
        return await run();
      } catch (error) {
        for (const k of Object.keys(tables)) tables[k] = saved.tables[k]!;
        articleTags = saved.articleTags;
        throw error;
      }
    },
  });
  const layer = (type: string): Partial<ResourceDefinition> => ({
    find: (id) => tables[type]!.find((r) => String(r.id) === id) ?? null,
    query: () => tables[type]!,
    results: (rows: Row[]) => rows,
    delete: (model: Row) => {
      tables[type] = tables[type]!.filter((r) => r !== model);
    },
    create: (values) => {
      const row: Row = { id: values.id ? Number(values.id) : Math.max(0, ...tables[type]!.map((r) => r.id)) + 1, ...values.attributes };
      for (const [name, linkage] of Object.entries(values.relationships)) {
        if (name === 'author') row.authorId = linkage && !Array.isArray(linkage) ? Number(linkage.id) : null;
      }
      tables[type]!.push(row);
      if (failOn === 'tags') throw new Error('the join table is broken');
      if (Array.isArray(values.relationships.tags)) {
        for (const t of values.relationships.tags) articleTags.push([row.id, Number(t.id)]);
      }
      return row;
    },
    update: (model: Row, values) => {
      Object.assign(model, values.attributes);
      const author = values.relationships.author;
      if (author !== undefined) model.authorId = author && !Array.isArray(author) ? Number(author.id) : null;
      const tags = values.relationships.tags;
      if (Array.isArray(tags)) articleTags = [...articleTags.filter(([a]) => a !== model.id), ...tags.map((t): [number, number] => [model.id, Number(t.id)])];
      return model;
    },
    loadRelated: (relationship, models: Row[]) =>
      models.map((m) =>
        relationship.name === 'author'
          ? (tables.people!.find((p) => p.id === m.authorId) ?? null)
          : relationship.name === 'tags'
            ? articleTags.filter(([a]) => a === m.id).map(([, t]) => tables.tags!.find((x) => x.id === t))
            : tables.articles!.filter((a) => a.authorId === m.id),
      ),
    addToRelationship: (model: Row, _relationship, identifiers) => {
      for (const i of identifiers) articleTags.push([model.id, Number(i.id)]);
    },
    removeFromRelationship: (model: Row, _relationship, identifiers) => {
      const ids = new Set(identifiers.map((i) => Number(i.id)));
      articleTags = articleTags.filter(([a, t]) => a !== model.id || !ids.has(t));
    },
  });
  const upper: StandardSchema = {
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value) => (typeof value === 'string' && value.trim() !== '' ? { value: value.trim() } : { issues: [{ message: 'must not be blank' }] }),
    },
  };
  api.resource({
    ...defineResource({
      type: 'people',
      fields: [Attribute.make('name').writable().required(), ToMany.make('articles').type('articles')],
      endpoints: [Show.make(), Index.make(), Create.make().clientIds(), Update.make()],
    }),
    ...layer('people'),
  });
  api.resource({
    ...defineResource({
      type: 'articles',
      fields: [
        Attribute.make('title').type('string').writable().required().maxLength(20).validate(upper),
        Attribute.make('body').type('string').nullable().writable(),
        Attribute.make('status').type('enum', ['draft', 'published']).writable().default('draft'),
        Attribute.make('views').type('integer').min(0),
        Attribute.make('publishedOn').type('date').nullable().writable(),
        ToOne.make('author').type('people').includable().writable().required(),
        ToMany.make('tags').type('tags').includable().writable(),
      ],
      endpoints: [
        Show.make(),
        Index.make(),
        Create.make().visible((ctx) => ctx.getAttribute('user') !== undefined),
        Update.make().visible((article: Row, ctx) => String(article.authorId) === ctx.getAttribute('user')),
        Delete.make(),
      ],
    }),
    ...layer('articles'),
  });
  api.resource({
    ...defineResource({ type: 'tags', fields: [Attribute.make('name').writable().required()], endpoints: [Show.make(), Index.make()] }),
    ...layer('tags'),
  });
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.fetch(
      new Request(`http://localhost${path}`, {
        method,
        headers: { 'content-type': 'application/vnd.api+json', ...headers },
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
      { attributes: { user: '1' } },
    );
  return { api, tables, send, tagsOf: (id: number) => articleTags.filter(([a]) => a === id).map(([, t]) => t), fail: (on: string) => (failOn = on) };
}

const article = (attributes: Record<string, unknown>, relationships: Record<string, unknown> = { author: { data: { type: 'people', id: '1' } } }) => ({
  data: { type: 'articles', attributes, relationships },
});

describe('Create', () => {
  it('answers 201 with Location and the stored resource, defaults and relationships applied', async () => {
    const { send, tagsOf } = store();
    const response = await send(
      'POST',
      '/articles?include=tags',
      article({ title: '  Hello  ' }, { author: { data: { type: 'people', id: '2' } }, tags: { data: [{ type: 'tags', id: '2' }] } }),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('http://localhost/articles/2');
    const doc = await json(response);
    expect(doc.data).toMatchObject({ type: 'articles', id: '2', attributes: { title: 'Hello', status: 'draft', body: null } });
    expect(doc.data.relationships.tags.data).toEqual([{ type: 'tags', id: '2' }]);
    expect(doc.included).toEqual([expect.objectContaining({ type: 'tags', id: '2' })]);
    expect(tagsOf(2)).toEqual([2]);
  });

  it.each([
    ['malformed JSON', 400, undefined, '{"data": '],
    ['a body that is not an object', 400, '', '[1]'],
    ['no data member', 400, '', { meta: {} }],
    ['an unknown top-level member', 400, '/extra', { data: { type: 'articles' }, extra: 1 }],
    ['data that is not an object', 400, '/data', { data: [] }],
    ['data without a type', 400, '/data', { data: { attributes: {} } }],
    ['an unknown member of data', 400, '/data/attrs', { data: { type: 'articles', attrs: {} } }],
    ['attributes that are not an object', 400, '/data/attributes', { data: { type: 'articles', attributes: [] } }],
    ['a relationship without data', 400, '/data/relationships/author', article({ title: 'x' }, { author: { id: '1' } })],
    ['a to-one given a list', 400, '/data/relationships/author/data', article({ title: 'x' }, { author: { data: [] } })],
    ['an identifier without id', 400, '/data/relationships/author/data', article({ title: 'x' }, { author: { data: { type: 'people' } } })],
    ['another type than the collection', 409, '/data/type', { data: { type: 'people', attributes: { name: 'x' } } }],
    ['a client-generated id', 403, '/data/id', { data: { type: 'articles', id: '9', attributes: { title: 'x' } } }],
    ['related resource of the wrong type', 409, '/data/relationships/author/data/type', article({ title: 'x' }, { author: { data: { type: 'tags', id: '1' } } })],
    ['a related resource that does not exist', 404, '/data/relationships/author/data', article({ title: 'x' }, { author: { data: { type: 'people', id: '99' } } })],
    ['a missing required attribute', 422, '/data/attributes', article({ body: 'x' })],
    ['a missing required relationship', 422, '/data', { data: { type: 'articles', attributes: { title: 'x' } } }],
    ['an unknown attribute', 422, '/data/attributes/color', article({ title: 'x', color: 'red' })],
    ['a read-only attribute', 422, '/data/attributes/views', article({ title: 'x', views: 3 })],
    ['a read-only relationship', 422, '/data/relationships/articles', { data: { type: 'people', attributes: { name: 'x' }, relationships: { articles: { data: [] } } } }],
    ['null where not nullable', 422, '/data/attributes/title', article({ title: null })],
    ['a number where a string belongs', 422, '/data/attributes/title', article({ title: 42 })],
    ['a string over its maximum length', 422, '/data/attributes/title', article({ title: 'x'.repeat(21) })],
    ['a value outside the enum', 422, '/data/attributes/status', article({ title: 'x', status: 'archived' })],
    ['an impossible date', 422, '/data/attributes/publishedOn', article({ title: 'x', publishedOn: '2024-02-30' })],
    ['a Standard Schema refusal', 422, '/data/attributes/title', article({ title: '   ' })],
    ['__proto__ as an attribute name', 422, '/data/attributes/__proto__', '{"data":{"type":"articles","attributes":{"title":"x","__proto__":{"polluted":true}},"relationships":{"author":{"data":{"type":"people","id":"1"}}}}}'],
  ])('%s → %i', async (name, status, pointer, body) => {
    const { send, tables } = store();
    const before = structuredClone(tables);
    const response = await send('POST', name === 'a read-only relationship' ? '/people' : '/articles', body);
    expect(response.status).toBe(status);
    const doc = await json(response);
    expect(doc.errors[0].source?.pointer).toBe(pointer);
    expect(tables).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reports every field problem of one request together', async () => {
    const { send } = store();
    const response = await send('POST', '/articles', { data: { type: 'articles', attributes: { title: 42, status: 'x', color: 1 } } });
    expect(response.status).toBe(422);
    const pointers = (await json(response)).errors.map((e: { source: { pointer: string } }) => e.source.pointer);
    expect(pointers).toEqual(['/data/attributes/title', '/data/attributes/status', '/data/attributes/color', '/data']);
  });

  it('mixes statuses under the most general one: 409 and 422 together are 400', async () => {
    const { send } = store();
    const response = await send('POST', '/articles', article({ title: 42 }, { author: { data: { type: 'tags', id: '1' } } }));
    expect(response.status).toBe(400);
    expect((await json(response)).errors.map((e: { status: string }) => e.status)).toEqual(['422', '409']);
  });

  it('stores Unicode and very long strings exactly', async () => {
    const { send } = store();
    const name = '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ — '.repeat(2000);
    const response = await send('POST', '/people', { data: { type: 'people', attributes: { name } } });
    expect(response.status).toBe(201);
    const id = (await json(response)).data.id;
    const read = await json(await send('GET', `/people/${id}`));
    expect(read.data.attributes.name).toBe(name);
  });

  it('counts maxLength in characters, not UTF-16 units', async () => {
    const { send } = store();
    expect((await send('POST', '/articles', article({ title: '𝔘'.repeat(20) }))).status).toBe(201);
  });

  it('accepts client-generated ids where the resource opts in, and 409 for a taken one', async () => {
    const { send } = store();
    expect((await send('POST', '/people', { data: { type: 'people', id: '7', attributes: { name: 'Lin' } } })).status).toBe(201);
    const taken = await send('POST', '/people', { data: { type: 'people', id: '7', attributes: { name: 'Lin' } } });
    expect(taken.status).toBe(409);
    expect((await json(taken)).errors[0].source.pointer).toBe('/data/id');
  });

  it('answers 415 without the JSON:API media type, and 403 when the endpoint refuses', async () => {
    const { send, api } = store();
    expect((await send('POST', '/articles', article({ title: 'x' }), { 'content-type': 'application/json' })).status).toBe(415);
    const anonymous = await api.fetch(
      new Request('http://localhost/articles', { method: 'POST', headers: { 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(article({ title: 'x' })) }),
    );
    expect(anonymous.status).toBe(403);
  });

  it('undoes every write of the request when a later part fails', async () => {
    const { send, tables, fail } = store();
    fail('tags');
    const response = await send('POST', '/articles', article({ title: 'x' }, { author: { data: { type: 'people', id: '1' } }, tags: { data: [{ type: 'tags', id: '1' }] } }));
    expect(response.status).toBe(500);
    expect(tables.articles).toHaveLength(1);
  });
});

describe('Update', () => {
  it('changes only the given fields and answers 200 with the resource', async () => {
    const { send, tables } = store();
    const response = await send('PATCH', '/articles/1', { data: { type: 'articles', id: '1', attributes: { body: 'Now with a body' } } });
    expect(response.status).toBe(200);
    const doc = await json(response);
    expect(doc.data.attributes).toMatchObject({ title: 'First', body: 'Now with a body', status: 'draft' });
    expect(tables.articles![0]).toMatchObject({ title: 'First', body: 'Now with a body' });
  });

  it.each([
    ['an id that differs from the URL', 409, '/data/id', { data: { type: 'articles', id: '2', attributes: {} } }],
    ['a type that differs', 409, '/data/type', { data: { type: 'people', id: '1', attributes: {} } }],
    ['no id', 400, '/data', { data: { type: 'articles', attributes: {} } }],
    ['a value of the wrong kind', 422, '/data/attributes/body', { data: { type: 'articles', id: '1', attributes: { body: 5 } } }],
  ])('%s → %i', async (_name, status, pointer, body) => {
    const { send } = store();
    const response = await send('PATCH', '/articles/1', body);
    expect(response.status).toBe(status);
    expect((await json(response)).errors[0].source.pointer).toBe(pointer);
  });

  it('does not require required fields, and 404 for a missing resource', async () => {
    const { send } = store();
    expect((await send('PATCH', '/articles/1', { data: { type: 'articles', id: '1' } })).status).toBe(200);
    expect((await send('PATCH', '/articles/9', { data: { type: 'articles', id: '9' } })).status).toBe(404);
  });

  it('calls its visibility callback with the model: 403 for another author', async () => {
    const { api, tables } = store();
    const response = await api.fetch(
      new Request('http://localhost/articles/1', {
        method: 'PATCH',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({ data: { type: 'articles', id: '1', attributes: { title: 'Stolen' } } }),
      }),
      { attributes: { user: '2' } },
    );
    expect(response.status).toBe(403);
    expect(tables.articles![0]!.title).toBe('First');
  });
});

describe('relationship endpoints', () => {
  it('replaces, adds without duplicates, and removes to-many members (204)', async () => {
    const { send, tagsOf } = store();
    expect((await send('PATCH', '/articles/1/relationships/tags', { data: [{ type: 'tags', id: '2' }] })).status).toBe(204);
    expect(tagsOf(1)).toEqual([2]);
    expect((await send('POST', '/articles/1/relationships/tags', { data: [{ type: 'tags', id: '1' }, { type: 'tags', id: '2' }, { type: 'tags', id: '1' }] })).status).toBe(204);
    expect(tagsOf(1).sort()).toEqual([1, 2]);
    expect((await send('DELETE', '/articles/1/relationships/tags', { data: [{ type: 'tags', id: '2' }] })).status).toBe(204);
    expect(tagsOf(1)).toEqual([1]);
    expect((await send('PATCH', '/articles/1/relationships/tags', { data: [] })).status).toBe(204);
    expect(tagsOf(1)).toEqual([]);
  });

  it('replaces a to-one and refuses POST/DELETE on it', async () => {
    const { send, tables } = store();
    expect((await send('PATCH', '/articles/1/relationships/author', { data: { type: 'people', id: '2' } })).status).toBe(204);
    expect(tables.articles![0]!.authorId).toBe(2);
    expect((await send('POST', '/articles/1/relationships/author', { data: { type: 'people', id: '1' } })).status).toBe(403);
  });

  it.each([
    ['a read-only relationship', 403, undefined, 'PATCH', '/people/1/relationships/articles', { data: [] }],
    ['a missing related resource', 404, '/data/1', 'POST', '/articles/1/relationships/tags', { data: [{ type: 'tags', id: '1' }, { type: 'tags', id: '99' }] }],
    ['a wrong related type', 409, '/data/0/type', 'PATCH', '/articles/1/relationships/tags', { data: [{ type: 'people', id: '1' }] }],
    ['a to-many given one identifier', 400, '/data', 'PATCH', '/articles/1/relationships/tags', { data: { type: 'tags', id: '1' } }],
    ['a body without data', 400, '', 'PATCH', '/articles/1/relationships/tags', {}],
  ])('%s → %i', async (_name, status, pointer, method, path, body) => {
    const { send, tagsOf } = store();
    const response = await send(method, path, body);
    expect(response.status).toBe(status);
    expect((await json(response)).errors[0].source?.pointer).toBe(pointer);
    expect(tagsOf(1)).toEqual([1]);
  });
});
