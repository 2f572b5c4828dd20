import { describe, expect, it } from 'vitest';
import { store } from '../support/write-host.js';
import { json } from '../support/validate.js';

const article = (
  attributes: Record<string, unknown>,
  relationships: Record<string, unknown> = { author: { data: { type: 'people', id: '1' } } },
) => ({
  data: { type: 'articles', attributes, relationships },
});

describe('Create', () => {
  it('answers 201 with Location and the stored resource, defaults and relationships applied', async () => {
    const { send, tagsOf } = store();
    const response = await send(
      'POST',
      '/articles?include=tags',
      article(
        { title: '  Hello  ' },
        { author: { data: { type: 'people', id: '2' } }, tags: { data: [{ type: 'tags', id: '2' }] } },
      ),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('http://localhost/articles/2');
    const doc = await json(response);
    expect(doc.data).toMatchObject({
      type: 'articles',
      id: '2',
      attributes: { title: 'Hello', status: 'draft', body: null },
    });
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
    [
      'a relationship without data',
      400,
      '/data/relationships/author',
      article({ title: 'x' }, { author: { id: '1' } }),
    ],
    [
      'a to-one given a list',
      400,
      '/data/relationships/author/data',
      article({ title: 'x' }, { author: { data: [] } }),
    ],
    [
      'an identifier without id',
      400,
      '/data/relationships/author/data',
      article({ title: 'x' }, { author: { data: { type: 'people' } } }),
    ],
    ['another type than the collection', 409, '/data/type', { data: { type: 'people', attributes: { name: 'x' } } }],
    ['a client-generated id', 403, '/data/id', { data: { type: 'articles', id: '9', attributes: { title: 'x' } } }],
    [
      'related resource of the wrong type',
      409,
      '/data/relationships/author/data/type',
      article({ title: 'x' }, { author: { data: { type: 'tags', id: '1' } } }),
    ],
    [
      'a related resource that does not exist',
      404,
      '/data/relationships/author/data',
      article({ title: 'x' }, { author: { data: { type: 'people', id: '99' } } }),
    ],
    ['a missing required attribute', 422, '/data/attributes', article({ body: 'x' })],
    ['a missing required relationship', 422, '/data', { data: { type: 'articles', attributes: { title: 'x' } } }],
    ['an unknown attribute', 422, '/data/attributes/color', article({ title: 'x', color: 'red' })],
    ['a read-only attribute', 403, '/data/attributes/views', article({ title: 'x', views: 3 })],
    [
      'a read-only relationship',
      403,
      '/data/relationships/articles',
      { data: { type: 'people', attributes: { name: 'x' }, relationships: { articles: { data: [] } } } },
    ],
    ['null where not nullable', 422, '/data/attributes/title', article({ title: null })],
    ['a number where a string belongs', 422, '/data/attributes/title', article({ title: 42 })],
    ['a string over its maximum length', 422, '/data/attributes/title', article({ title: 'x'.repeat(21) })],
    ['a value outside the enum', 422, '/data/attributes/status', article({ title: 'x', status: 'archived' })],
    ['an impossible date', 422, '/data/attributes/publishedOn', article({ title: 'x', publishedOn: '2024-02-30' })],
    ['a Standard Schema refusal', 422, '/data/attributes/title', article({ title: '   ' })],
    [
      '__proto__ as an attribute name',
      422,
      '/data/attributes/__proto__',
      '{"data":{"type":"articles","attributes":{"title":"x","__proto__":{"polluted":true}},"relationships":{"author":{"data":{"type":"people","id":"1"}}}}}',
    ],
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
    const response = await send('POST', '/articles', {
      data: { type: 'articles', attributes: { title: 42, status: 'x', color: 1 } },
    });
    expect(response.status).toBe(422);
    const pointers = (await json(response)).errors.map((e: { source: { pointer: string } }) => e.source.pointer);
    expect(pointers).toEqual(['/data/attributes/title', '/data/attributes/status', '/data/attributes/color', '/data']);
  });

  it('mixes statuses under the most general one: 409 and 422 together are 400', async () => {
    const { send } = store();
    const response = await send(
      'POST',
      '/articles',
      article({ title: 42 }, { author: { data: { type: 'tags', id: '1' } } }),
    );
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
    expect(
      (await send('POST', '/people', { data: { type: 'people', id: '7', attributes: { name: 'Lin' } } })).status,
    ).toBe(201);
    const taken = await send('POST', '/people', { data: { type: 'people', id: '7', attributes: { name: 'Lin' } } });
    expect(taken.status).toBe(409);
    expect((await json(taken)).errors[0].source.pointer).toBe('/data/id');
  });

  it('answers 415 without the JSON:API media type, and 403 when the endpoint refuses', async () => {
    const { send, api } = store();
    expect(
      (await send('POST', '/articles', article({ title: 'x' }), { 'content-type': 'application/json' })).status,
    ).toBe(415);
    const anonymous = await api.fetch(
      new Request('http://localhost/articles', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify(article({ title: 'x' })),
      }),
    );
    expect(anonymous.status).toBe(403);
  });

  it('answers a client that aborted mid-body with 499, reporting no server error and writing nothing', async () => {
    const errors: unknown[] = [];
    const { api, tables } = store({ onError: (e) => errors.push(e) });
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      pull(stream) {
        controller.abort();
        stream.error(new Error('aborted'));
      },
    });
    const response = await api.fetch(
      new Request('http://localhost/tags', {
        method: 'POST',
        headers: { 'content-type': 'application/vnd.api+json' },
        body,
        signal: controller.signal,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(499);
    expect(errors).toEqual([]);
    expect(tables.tags).toHaveLength(2);
  });

  it('undoes every write of the request when a later part fails', async () => {
    const { send, tables, fail } = store();
    fail('tags');
    const response = await send(
      'POST',
      '/articles',
      article(
        { title: 'x' },
        { author: { data: { type: 'people', id: '1' } }, tags: { data: [{ type: 'tags', id: '1' }] } },
      ),
    );
    expect(response.status).toBe(500);
    expect(tables.articles).toHaveLength(1);
  });
});

describe('Update', () => {
  it('changes only the given fields and answers 200 with the resource', async () => {
    const { send, tables } = store();
    const response = await send('PATCH', '/articles/1', {
      data: { type: 'articles', id: '1', attributes: { body: 'Now with a body' } },
    });
    expect(response.status).toBe(200);
    const doc = await json(response);
    expect(doc.data.attributes).toMatchObject({ title: 'First', body: 'Now with a body', status: 'draft' });
    expect(tables.articles![0]).toMatchObject({ title: 'First', body: 'Now with a body' });
  });

  it.each([
    ['an id that differs from the URL', 409, '/data/id', { data: { type: 'articles', id: '2', attributes: {} } }],
    ['a type that differs', 409, '/data/type', { data: { type: 'people', id: '1', attributes: {} } }],
    ['no id', 400, '/data', { data: { type: 'articles', attributes: {} } }],
    [
      'a value of the wrong kind',
      422,
      '/data/attributes/body',
      { data: { type: 'articles', id: '1', attributes: { body: 5 } } },
    ],
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
    expect((await send('PATCH', '/articles/1/relationships/tags', { data: [{ type: 'tags', id: '2' }] })).status).toBe(
      204,
    );
    expect(tagsOf(1)).toEqual([2]);
    expect(
      (
        await send('POST', '/articles/1/relationships/tags', {
          data: [
            { type: 'tags', id: '1' },
            { type: 'tags', id: '2' },
            { type: 'tags', id: '1' },
          ],
        })
      ).status,
    ).toBe(204);
    expect(tagsOf(1).sort()).toEqual([1, 2]);
    expect((await send('DELETE', '/articles/1/relationships/tags', { data: [{ type: 'tags', id: '2' }] })).status).toBe(
      204,
    );
    expect(tagsOf(1)).toEqual([1]);
    expect((await send('PATCH', '/articles/1/relationships/tags', { data: [] })).status).toBe(204);
    expect(tagsOf(1)).toEqual([]);
  });

  it('answers 404 for any method on a relationship that does not exist', async () => {
    const { send } = store();
    for (const method of ['GET', 'PATCH', 'POST', 'DELETE']) {
      expect(
        (await send(method, '/articles/1/relationships/nope', method === 'GET' ? undefined : { data: [] })).status,
      ).toBe(404);
    }
  });

  it('replaces a to-one and refuses POST/DELETE on it', async () => {
    const { send, tables } = store();
    expect(
      (await send('PATCH', '/articles/1/relationships/author', { data: { type: 'people', id: '2' } })).status,
    ).toBe(204);
    expect(tables.articles![0]!.authorId).toBe(2);
    expect((await send('POST', '/articles/1/relationships/author', { data: { type: 'people', id: '1' } })).status).toBe(
      403,
    );
  });

  it.each([
    ['a read-only relationship', 403, undefined, 'PATCH', '/people/1/relationships/articles', { data: [] }],
    [
      'a missing related resource',
      404,
      '/data/1',
      'POST',
      '/articles/1/relationships/tags',
      {
        data: [
          { type: 'tags', id: '1' },
          { type: 'tags', id: '99' },
        ],
      },
    ],
    [
      'a wrong related type',
      409,
      '/data/0/type',
      'PATCH',
      '/articles/1/relationships/tags',
      { data: [{ type: 'people', id: '1' }] },
    ],
    [
      'a to-many given one identifier',
      400,
      '/data',
      'PATCH',
      '/articles/1/relationships/tags',
      { data: { type: 'tags', id: '1' } },
    ],
    ['a body without data', 400, '', 'PATCH', '/articles/1/relationships/tags', {}],
  ])('%s → %i', async (_name, status, pointer, method, path, body) => {
    const { send, tagsOf } = store();
    const response = await send(method, path, body);
    expect(response.status).toBe(status);
    expect((await json(response)).errors[0].source?.pointer).toBe(pointer);
    expect(tagsOf(1)).toEqual([1]);
  });
});
