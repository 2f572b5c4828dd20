import { describe, expect, test, vi } from 'vitest';
import { Attribute, Create, JsonApi, JsonApiError, Show, ToOne, defineResource } from 'jsonapi-gen';
import { createBlog } from '../support/memory-host.js';
import { JSON_API, request } from '../support/request.js';
import { json, jsonError, type Doc } from '../support/validate.js';

describe('routing', () => {
  test.each([
    ['an unknown type', 'GET', '/users'],
    ['an unknown id', 'GET', '/tags/99'],
    ['the root', 'GET', '/'],
    ['too deep a path', 'GET', '/articles/1/relationships/author/extra'],
    ['an empty segment', 'GET', '/articles//author'],
    ['an unknown type, any method', 'DELETE', '/users/1'],
  ])('%s is a 404 errors document', async (_, method, path) => {
    const document = await jsonError(await createBlog().api.fetch(request(path, { method })), 404);
    expect(document.errors[0]).toMatchObject({ status: '404', title: 'Not Found' });
  });

  test.each([
    ['DELETE', '/articles', 'GET, HEAD'],
    ['POST', '/tags', 'GET, HEAD'],
    ['PATCH', '/tags/1', 'GET, HEAD'],
    ['PUT', '/articles/1', 'GET, HEAD, DELETE'],
    ['OPTIONS', '/comments/1', 'GET, HEAD, DELETE'],
    ['DELETE', '/articles/1/author', 'GET, HEAD'],
  ])('%s %s is a 405 with Allow: %s', async (method, path, allow) => {
    const response = await createBlog().api.fetch(request(path, { method }));
    const document = await jsonError(response, 405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(document.errors[0].status).toBe('405');
  });

  test('a trailing slash is ignored', async () => {
    const response = await createBlog().api.fetch(request('/tags/'));
    expect(response.status).toBe(200);
    expect((await json(response)).data).toHaveLength(3);
  });

  test('percent-encoded ids are decoded for find and encoded again in links', async () => {
    const blog = createBlog();
    blog.db.tags.push({ id: 'a b/c', name: 'odd' });
    const document = await json(await blog.api.fetch(request('/tags/a%20b%2Fc')));
    expect(document.data.id).toBe('a b/c');
    expect(document.data.links.self).toBe('http://localhost/tags/a%20b%2Fc');
  });
});

describe('content negotiation', () => {
  test.each([
    ['no Accept', undefined],
    ['the JSON:API media type', JSON_API],
    ['*/*', '*/*'],
    ['application/json only', 'application/json'],
    ['a profile parameter', `${JSON_API}; profile="https://example.com/profiles/x"`],
    ['one plain instance among parameterized ones', `${JSON_API}; charset=utf-8, ${JSON_API}`],
    ['q is not a media type parameter', `${JSON_API}; q=0.9`],
  ])('Accept with %s is served', async (_, accept) => {
    const response = await createBlog().api.fetch(request('/tags', { headers: accept ? { accept } : {} }));
    expect(response.status).toBe(200);
    await json(response);
  });

  test.each([
    ['a charset', `${JSON_API}; charset=utf-8`],
    ['every instance parameterized', `${JSON_API}; charset=utf-8, ${JSON_API}; version=2`],
    ['an unsupported extension', `${JSON_API}; ext="https://example.com/ext/none"`],
    ['an unknown parameter next to other types', `text/html, ${JSON_API}; foo=bar`],
  ])('Accept with %s is a 406 pointing at Accept', async (_, accept) => {
    const document = await jsonError(await createBlog().api.fetch(request('/tags', { headers: { accept } })), 406);
    expect(document.errors[0].source).toEqual({ header: 'Accept' });
  });

  // Negotiation runs before the write itself: a body with the wrong media type is a 415,
  // whatever the resource would do with it.
  test.each([
    ['application/json', 'application/json'],
    ['a charset parameter', `${JSON_API}; charset=utf-8`],
    ['an unknown parameter next to a profile', `${JSON_API}; profile="https://example.com/p"; version=1`],
    ['an unsupported extension', `${JSON_API}; ext="https://example.com/ext/none"`],
    ['no Content-Type', undefined],
  ])('a POST body with %s is a 415 pointing at Content-Type', async (_, contentType) => {
    const create = vi.fn();
    const api = new JsonApi({ onError: () => {} }).resource({
      ...defineResource({ type: 'notes', fields: [Attribute.make('text').writable()], endpoints: [Create.make()] }),
      create,
    });
    const body = JSON.stringify({ data: { type: 'notes', attributes: { text: 'x' } } });
    const response = await api.fetch(
      request('/notes', { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body }),
    );
    const document = await jsonError(response, 415);
    expect(document.errors[0].source).toEqual({ header: 'Content-Type' });
    expect(create).not.toHaveBeenCalled();
  });

  test('every document response says Content-Type: application/vnd.api+json and Vary: Accept', async () => {
    const blog = createBlog();
    for (const path of [
      '/articles',
      '/articles/1',
      '/articles/1/author',
      '/articles/1/relationships/tags',
      '/nothing',
      '/articles?sort=x',
    ]) {
      const response = await blog.api.fetch(request(path));
      expect(response.headers.get('content-type'), path).toBe(JSON_API);
      expect(response.headers.get('vary'), path).toBe('Accept');
      await json(response);
    }
  });
});

describe('query parameter names', () => {
  test.each([
    ['an all-lowercase name (reserved for JSON:API)', 'debug=1'],
    ['an implementation-specific name nothing understands', 'traceId=1'],
    ['an illegal member name', 'my%20param=1'],
    ['include with brackets', 'include[x]=author'],
    ['fields without a type', 'fields=title'],
    ['filter without a name', 'filter=x'],
    ['a repeated parameter', 'sort=title&sort=-title'],
    ['unbalanced brackets', 'filter[status=draft'],
  ])('%s is a 400 pointing at the parameter', async (_, query) => {
    const document = await jsonError(await createBlog().api.fetch(request(`/articles?${query}`)), 400);
    expect(document.errors[0].source.parameter).toBe(decodeURIComponent(query.split('=')[0]!));
  });

  test('implementation-specific names the API was told about are accepted', async () => {
    const blog = createBlog({ queryParameters: ['traceId'] });
    const response = await blog.api.fetch(request('/articles?traceId=abc'));
    expect(response.status).toBe(200);
    expect((await json(response)).data).toHaveLength(4);
  });
});

describe('HEAD', () => {
  test('behaves as GET without a body', async () => {
    const blog = createBlog();
    const got = await blog.api.fetch(request('/articles?include=author'));
    const head = await blog.api.fetch(request('/articles?include=author', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(Object.fromEntries(head.headers)).toEqual(Object.fromEntries(got.headers));
    expect(head.body).toBeNull();
    expect(blog.calls.of('results')).toBe(2);
  });

  test.each([
    ['an unknown route', '/nothing', 404],
    ['a bad query parameter', '/articles?sort=nope', 400],
    ['a failing data layer', '/tags/boom', 500],
  ])('an error answer to HEAD (%s) has no body either', async (_, path, status) => {
    const blog = createBlog();
    // The tags table itself fails, as a broken database would (the store reads it with find()).
    blog.db.tags.find = () => {
      throw new Error('boom');
    };
    const response = await blog.api.fetch(request(path, { method: 'HEAD' }));
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe(JSON_API);
    expect(await response.text()).toBe('');
  });
});

describe('basePath', () => {
  const blog = () => createBlog({ basePath: '/api/', extraArticles: 30 });

  test('serves below the base path, and every link carries it', async () => {
    const response = await blog().api.fetch(request('/api/articles?include=author'));
    const document = await json(response);
    expect(response.status).toBe(200);
    const links: string[] = [
      ...Object.values<string | null>(document.links).filter((l): l is string => l !== null),
      ...[...document.data, ...document.included].flatMap((r: Doc) => [
        r.links.self,
        ...Object.values<Doc>(r.relationships ?? {}).flatMap((rel) => [rel.links.self, rel.links.related]),
      ]),
    ];
    expect(links.length).toBeGreaterThan(60);
    for (const link of links) expect(link).toMatch(/^http:\/\/localhost\/api\/(articles|people)/);
  });

  test.each(['/articles', '/apiary/articles', '/api', '/'])('%s, outside it, is a 404', async (path) => {
    await jsonError(await blog().api.fetch(request(path)), 404);
  });
});

describe('errors', () => {
  function failing(thrown: unknown) {
    const onError = vi.fn();
    const api = new JsonApi({ onError }).resource({
      ...defineResource({ type: 'notes', fields: [Attribute.make('text')], endpoints: [Show.make()] }),
      find: () => {
        throw thrown;
      },
    });
    return { api, onError };
  }

  test('an unexpected error is a 500 that leaks nothing and reaches onError', async () => {
    const error = new Error('connect ECONNREFUSED postgres://admin:hunter2@db');
    const { api, onError } = failing(error);
    const response = await api.fetch(request('/notes/1'));
    const document = await jsonError(response, 500);
    expect(document.errors).toEqual([{ status: '500', title: 'Internal Server Error' }]);
    expect(JSON.stringify(document)).not.toMatch(/hunter2|ECONNREFUSED|at |\.ts/);
    expect(onError).toHaveBeenCalledExactlyOnceWith(error);
  });

  test.each([
    ['a string', 'secret string'],
    ['undefined', undefined],
    ['an object', { secret: 1 }],
  ])('throwing %s is a 500 too', async (_, thrown) => {
    const { api, onError } = failing(thrown);
    const document = await jsonError(await api.fetch(request('/notes/1')), 500);
    expect(JSON.stringify(document)).not.toContain('secret');
    expect(onError).toHaveBeenCalledOnce();
  });

  test('handle rejects with the thrown value; error() turns it into the response', async () => {
    const error = new TypeError('boom');
    const { api, onError } = failing(error);
    await expect(api.handle(request('/notes/1'))).rejects.toBe(error);
    expect(onError).not.toHaveBeenCalled();
    await jsonError(api.error(error), 500);
    expect(onError).toHaveBeenCalledWith(error);
  });

  test('a JsonApiError thrown by the data layer keeps its status and members, and is not reported', async () => {
    const { api, onError } = failing(
      new JsonApiError(409, { detail: 'Locked for review', code: 'locked', meta: { until: 'tomorrow' } }),
    );
    const document = await jsonError(await api.fetch(request('/notes/1')), 409);
    expect(document.errors).toEqual([
      { status: '409', title: 'Conflict', code: 'locked', detail: 'Locked for review', meta: { until: 'tomorrow' } },
    ]);
    expect(onError).not.toHaveBeenCalled();
  });

  test('4xx errors carry status, title, detail and a source', async () => {
    const document = await jsonError(await createBlog().api.fetch(request('/articles?filter[nope]=1')), 400);
    expect(document.errors).toEqual([
      expect.objectContaining({
        status: '400',
        title: 'Bad Request',
        detail: expect.any(String),
        source: { parameter: 'filter[nope]' },
      }),
    ]);
  });
});
describe('attributes', () => {
  test('reach ctx.getAttribute in visibility callbacks, per request', async () => {
    const seen: unknown[] = [];
    const api = new JsonApi().resource({
      ...defineResource({
        type: 'notes',
        fields: [Attribute.make('text'), ToOne.make('parent').type('notes')],
        endpoints: [
          Show.make().visible((ctx) => (seen.push(ctx.getAttribute('user')), ctx.getAttribute('user') === 'ada')),
        ],
      }),
      find: (id: string) => ({ id, text: 'hello' }),
      loadRelated: (_relationship, models: readonly unknown[]) => models.map(() => null),
    });
    await jsonError(await api.fetch(request('/notes/1')), 403);
    await jsonError(await api.fetch(request('/notes/1'), { attributes: { user: 'bob' } }), 403);
    const document = await json(await api.fetch(request('/notes/1'), { attributes: { user: 'ada' } }));
    expect(document.data.attributes).toEqual({ text: 'hello' });
    expect(seen).toEqual([undefined, 'bob', 'ada']);
    // What Show hides, its related and relationship endpoints hide too.
    await jsonError(await api.fetch(request('/notes/1/parent'), { attributes: { user: 'bob' } }), 403);
    await jsonError(await api.fetch(request('/notes/1/relationships/parent'), { attributes: { user: 'bob' } }), 403);
    const related = await api.fetch(request('/notes/1/parent'), { attributes: { user: 'ada' } });
    expect(related.status).toBe(200);
    expect((await json(related)).data).toBeNull();
  });
});
