/**
 * The write path of the blog demo end to end (issue 6): Create, Update, Delete and the
 * relationship endpoints over HTTP with fetch, on SQLite and on PostgreSQL. Every status a
 * write can answer (201, 200, 204, 400, 403, 404, 409, 415, 422) with its exact
 * `source.pointer`; hostile payloads (Unicode, 100k strings, wrong kinds, `__proto__`) are
 * refused clearly or stored exactly; one request is one transaction. Every response document
 * is validated against the JSON:API 1.1 schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { WRITE_SEED, authorOf, BACKENDS, startDemoOn } from '../support/demo.js';
import { type Doc, json } from '../support/validate.js';

const JSONAPI = 'application/vnd.api+json';

interface Answer {
  status: number;
  headers: Headers;
  /** The validated document, or undefined for an empty body. */
  doc: Doc;
}

describe.each(BACKENDS)('writes on the blog demo (%s)', (dialect) => {
  let demo: Demo;

  beforeAll(async () => {
    demo = await startDemoOn(dialect, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  /** One HTTP exchange; `body` is sent as JSON unless it is a string (sent as is). */
  async function call(
    method: string,
    path: string,
    options: { user?: string; body?: unknown; contentType?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: JSONAPI };
    if (options.user !== undefined) headers.authorization = `Bearer ${options.user}`;
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? JSONAPI;
    const response = await fetch(`${demo.url}${path}`, {
      method,
      headers,
      ...(options.body !== undefined && {
        body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      }),
    });
    if (response.status === 204) {
      expect(await response.text()).toBe('');
      return { status: 204, headers: response.headers, doc: undefined as unknown as Doc };
    }
    return { status: response.status, headers: response.headers, doc: await json(response) };
  }
  const get = (path: string, user?: string) => call('GET', path, user === undefined ? {} : { user });
  const post = (path: string, data: unknown, user?: string) =>
    call('POST', path, { body: { data }, ...(user !== undefined && { user }) });
  const patch = (path: string, data: unknown, user?: string) =>
    call('PATCH', path, { body: { data }, ...(user !== undefined && { user }) });
  const del = (path: string, data?: unknown, user?: string) =>
    call('DELETE', path, { ...(data !== undefined && { body: { data } }), ...(user !== undefined && { user }) });

  /** The errors of an answer as `status pointer` lines, for exact comparisons. */
  const problems = (answer: Answer) =>
    (answer.doc.errors as Array<{ status: string; source?: { pointer?: string; header?: string } }>).map(
      (e) => `${e.status} ${e.source?.pointer ?? (e.source?.header !== undefined ? `header:${e.source.header}` : '-')}`,
    );
  const ids = (doc: Doc) => (doc.data as Array<{ id: string }>).map((r) => r.id);
  const tagIds = async (article: string) =>
    ids((await get(`/articles/${article}/relationships/tags`)).doc).sort((a, b) => Number(a) - Number(b));
  const total = async () => (await get('/articles?page[limit]=1')).doc.meta.total as number;
  const person = (id: string) => ({ data: { type: 'people', id } });
  const tagList = (...list: string[]) => ({ data: list.map((id) => ({ type: 'tags', id })) });
  const article = (attributes: Record<string, unknown>, author = '1', relationships: Record<string, unknown> = {}) => ({
    type: 'articles',
    attributes,
    relationships: { author: person(author), ...relationships },
  });

  describe('the CRUD cycle of an article (examples/blog/README.md)', () => {
    it('create with author and tags: 201, Location, server-set timestamps, the default status', async () => {
      const before = Date.now();
      const created = await post(
        '/articles',
        article({ title: 'A new article', body: 'Hello' }, '2', { tags: tagList('1', '3') }),
        '2',
      );
      expect(created.status).toBe(201);
      const { data } = created.doc;
      expect(created.headers.get('location')).toBe(`${demo.url}/articles/${data.id}`);
      expect(data.links.self).toBe(`${demo.url}/articles/${data.id}`);
      expect(created.doc.links.self).toBe(data.links.self);
      expect(data.attributes).toMatchObject({ title: 'A new article', body: 'Hello', status: 'draft' });
      for (const stamp of ['createdAt', 'updatedAt']) {
        const time = Date.parse(data.attributes[stamp]);
        expect(time, stamp).toBeGreaterThanOrEqual(before - 1000);
        expect(time, stamp).toBeLessThanOrEqual(Date.now() + 1000);
      }
      expect(data.relationships.author.links.related).toBe(`${demo.url}/articles/${data.id}/author`);

      const read = await get(`/articles/${data.id}?include=author,tags`);
      expect(read.status).toBe(200);
      expect(read.doc.data.attributes).toEqual(data.attributes);
      expect(read.doc.data.relationships.author.data).toEqual({ type: 'people', id: '2' });
      expect(read.doc.data.relationships.tags.data).toEqual([
        { type: 'tags', id: '1' },
        { type: 'tags', id: '3' },
      ]);
      expect(read.doc.included.map((r: Doc) => `${r.type}/${r.id}`).sort()).toEqual(['people/2', 'tags/1', 'tags/3']);
      expect((await get(`/articles/${data.id}/author`)).doc.data).toMatchObject({ type: 'people', id: '2' });
      expect(ids((await get(`/tags/3/articles?page[limit]=50`)).doc)).toContain(data.id);
      expect(ids((await get(`/people/2/articles?page[limit]=50`)).doc)).toContain(data.id);
    });

    it('update: 403 for another person and for nobody, 200 for the author (only the given fields change)', async () => {
      const { doc } = await post('/articles', article({ title: 'Mine', body: 'Kept' }, '3'), '3');
      const id = doc.data.id as string;
      const change = { type: 'articles', id, attributes: { title: 'Changed', status: 'published' } };
      const other = await patch(`/articles/${id}`, change, '4');
      expect(other.status).toBe(403);
      expect(problems(other)).toEqual(['403 -']);
      expect((await patch(`/articles/${id}`, change)).status).toBe(403);
      expect((await get(`/articles/${id}`)).doc.data.attributes.title).toBe('Mine');

      await new Promise((r) => setTimeout(r, 5));
      const mine = await patch(`/articles/${id}`, change, '3');
      expect(mine.status).toBe(200);
      expect(mine.doc.data.attributes).toMatchObject({ title: 'Changed', status: 'published', body: 'Kept' });
      expect(mine.doc.data.attributes.createdAt).toBe(doc.data.attributes.createdAt);
      expect(Date.parse(mine.doc.data.attributes.updatedAt)).toBeGreaterThan(Date.parse(doc.data.attributes.updatedAt));
      expect((await get(`/articles/${id}`)).doc.data.attributes).toEqual(mine.doc.data.attributes);
    });

    it('tags: add (no duplicates), remove, replace, clear: 204 each; only the author; related endpoints follow', async () => {
      const { doc } = await post('/articles', article({ title: 'Tagged' }, '1', { tags: tagList('1') }), '1');
      const id = doc.data.id as string;
      const at = `/articles/${id}/relationships/tags`;
      expect((await post(at, tagList('2', '1', '2').data, '1')).status).toBe(204);
      expect(await tagIds(id)).toEqual(['1', '2']);
      expect((await del(at, tagList('1', '7').data, '1')).status).toBe(204);
      expect(await tagIds(id)).toEqual(['2']);
      expect((await patch(at, tagList('5', '6').data, '1')).status).toBe(204);
      expect(await tagIds(id)).toEqual(['5', '6']);
      expect(ids((await get(`/articles/${id}/tags`)).doc).sort()).toEqual(['5', '6']);
      expect(ids((await get(`/tags/5/articles?page[limit]=50`)).doc)).toContain(id);
      expect(ids((await get(`/tags/2/articles?page[limit]=50`)).doc)).not.toContain(id);

      for (const [method, send] of [
        ['POST', post],
        ['PATCH', patch],
        ['DELETE', del],
      ] as const) {
        const refused = await send(at, tagList('9').data, '2');
        expect(refused.status, method).toBe(403);
      }
      expect(await tagIds(id)).toEqual(['5', '6']);
      expect((await patch(at, [], '1')).status).toBe(204);
      expect(await tagIds(id)).toEqual([]);
      expect((await get(`/articles/${id}/relationships/tags`)).doc).toMatchObject({
        data: [],
        links: { self: `${demo.url}${at}`, related: `${demo.url}/articles/${id}/tags` },
      });
    });

    it('to-one author: PATCH replaces it (204); POST and DELETE on it are 403; the new author owns the article', async () => {
      const { doc } = await post('/articles', article({ title: 'Handed over' }, '2'), '2');
      const id = doc.data.id as string;
      const at = `/articles/${id}/relationships/author`;
      expect((await post(at, person('4').data, '2')).status).toBe(403);
      expect((await del(at, person('4').data, '2')).status).toBe(403);
      expect((await patch(at, person('4').data, '2')).status).toBe(204);
      expect((await get(at)).doc.data).toEqual({ type: 'people', id: '4' });
      expect((await get(`/articles/${id}/author`)).doc.data.attributes.name).toBeTruthy();
      expect(ids((await get('/people/4/articles?page[limit]=50')).doc)).toContain(id);
      expect((await patch(`/articles/${id}`, { type: 'articles', id, attributes: { title: 'x' } }, '2')).status).toBe(
        403,
      );
      expect(
        (await patch(`/articles/${id}`, { type: 'articles', id, attributes: { title: 'Mine now' } }, '4')).status,
      ).toBe(200);
    });

    it('delete: 403 for another person, 204 for the author, then 404 everywhere', async () => {
      const { doc } = await post('/articles', article({ title: 'Short-lived' }, '5', { tags: tagList('4') }), '5');
      const id = doc.data.id as string;
      const comment = await post(
        '/comments',
        {
          type: 'comments',
          attributes: { body: 'first' },
          relationships: { author: person('1'), article: { data: { type: 'articles', id } } },
        },
        '1',
      );
      expect(comment.status).toBe(201);
      const before = await total();
      const other = await del(`/articles/${id}`, undefined, '1');
      expect(other.status).toBe(403);
      expect(await total()).toBe(before);
      expect((await del(`/articles/${id}`, undefined, '5')).status).toBe(204);
      expect(await total()).toBe(before - 1);
      expect((await get(`/articles/${id}`)).status).toBe(404);
      expect((await get(`/articles/${id}/tags`)).status).toBe(404);
      expect((await get(`/articles/${id}/relationships/author`)).status).toBe(404);
      expect((await get(`/comments/${comment.doc.data.id}`)).status).toBe(404);
      expect(ids((await get('/tags/4/articles?page[limit]=50')).doc)).not.toContain(id);
      expect((await del(`/articles/${id}`, undefined, '5')).status).toBe(404);
    });
  });

  it('comments: create, update, move to another article, delete; the articles follow', async () => {
    const created = await post('/comments', {
      type: 'comments',
      attributes: { body: 'Nice one' },
      relationships: { author: person('3'), article: { data: { type: 'articles', id: '2' } } },
    });
    expect(created.status).toBe(201);
    const id = created.doc.data.id as string;
    expect(created.headers.get('location')).toBe(`${demo.url}/comments/${id}`);
    expect(Number.isNaN(Date.parse(created.doc.data.attributes.createdAt))).toBe(false);
    expect(ids((await get('/articles/2/comments?page[limit]=100')).doc)).toContain(id);

    // Only the comment's author (person 3) may change its body (examples/blog/README.md, "Application behaviour").
    const updated = await patch(`/comments/${id}`, { type: 'comments', id, attributes: { body: 'Nicer one' } }, '3');
    expect(updated.status).toBe(200);
    expect(updated.doc.data.attributes).toEqual({ ...created.doc.data.attributes, body: 'Nicer one' });

    expect((await patch(`/comments/${id}/relationships/article`, { type: 'articles', id: '3' })).status).toBe(204);
    expect(ids((await get('/articles/2/comments?page[limit]=100')).doc)).not.toContain(id);
    expect(ids((await get('/articles/3/comments?page[limit]=100')).doc)).toContain(id);
    expect((await get(`/comments/${id}/article`)).doc.data.id).toBe('3');

    const missing = await post('/comments', {
      type: 'comments',
      attributes: { body: 'x' },
      relationships: { author: person('3') },
    });
    expect(missing.status).toBe(422);
    expect(problems(missing)).toEqual(['422 /data/relationships']);
    expect(missing.doc.errors[0].detail).toBe('article is required');

    expect((await del(`/comments/${id}`)).status).toBe(204);
    expect((await get(`/comments/${id}`)).status).toBe(404);
    expect(ids((await get('/articles/3/comments?page[limit]=100')).doc)).not.toContain(id);
  });

  it('people: create (email optional), update, delete with their articles', async () => {
    const created = await post('/people', { type: 'people', attributes: { name: 'Hedy Lamarr' } });
    expect(created.status).toBe(201);
    const id = created.doc.data.id as string;
    expect(created.doc.data.attributes).toMatchObject({ name: 'Hedy Lamarr', email: null });
    expect(Number.isNaN(Date.parse(created.doc.data.attributes.createdAt))).toBe(false);
    const updated = await patch(`/people/${id}`, { type: 'people', id, attributes: { email: 'hedy@example.com' } });
    expect(updated.status).toBe(200);
    expect(updated.doc.data.attributes).toMatchObject({ name: 'Hedy Lamarr', email: 'hedy@example.com' });
    const written = await post('/articles', article({ title: 'By Hedy' }, id), id);
    expect(written.status).toBe(201);
    const readOnly = await patch(`/people/${id}/relationships/articles`, []);
    expect(readOnly.status).toBe(403);
    expect(readOnly.doc.errors[0].code).toBe('read_only');
    expect((await del(`/people/${id}`)).status).toBe(204);
    expect((await get(`/people/${id}`)).status).toBe(404);
    expect((await get(`/articles/${written.doc.data.id}`)).status).toBe(404);
  });

  it('tags: create, rename, delete; a duplicate name is 409 (unique) on create and on update', async () => {
    const created = await post('/tags', { type: 'tags', attributes: { name: 'rust' } });
    expect(created.status).toBe(201);
    const id = created.doc.data.id as string;
    const duplicate = await post('/tags', { type: 'tags', attributes: { name: 'databases' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.doc.errors[0]).toMatchObject({
      status: '409',
      code: 'unique_violation',
      source: { pointer: '/data/attributes/name' },
    });
    const renamed = await patch(`/tags/${id}`, { type: 'tags', id, attributes: { name: 'zig' } });
    expect(renamed.status).toBe(200);
    expect(renamed.doc.data.attributes).toEqual({ name: 'zig' });
    const clash = await patch(`/tags/${id}`, { type: 'tags', id, attributes: { name: 'json' } });
    expect(problems(clash)).toEqual(['409 /data/attributes/name']);
    expect((await get(`/tags/${id}`)).doc.data.attributes.name).toBe('zig');
    expect(ids((await get(`/tags?filter[name]=databases`)).doc)).toHaveLength(1);
    expect((await post('/articles/1/relationships/tags', [{ type: 'tags', id }], authorOf(1))).status).toBe(204);
    expect((await del(`/tags/${id}`)).status).toBe(204);
    expect((await get(`/tags/${id}`)).status).toBe(404);
    expect(await tagIds('1')).not.toContain(id);
  });

  describe('every refusal, with the exact pointer', () => {
    it('400: unreadable or misshapen documents', async () => {
      const cases: Array<[unknown, string[]]> = [
        ['{"data": ', ['400 -']],
        ['', ['400 -']],
        [[], ['400 ']],
        [{ data: { type: 'articles' }, included: [] }, ['400 /included']],
        [{ meta: {} }, ['400 ']],
        [{ data: [] }, ['400 /data']],
        [{ data: { attributes: {} } }, ['400 /data']],
        [{ data: { type: 7 } }, ['400 /data/type']],
        [{ data: { type: 'articles', id: 7 } }, ['400 /data/id']],
        [{ data: { type: 'articles', attributes: [] } }, ['400 /data/attributes']],
        [{ data: { type: 'articles', relationships: 'x' } }, ['400 /data/relationships']],
        [{ data: { type: 'articles', foo: 1 } }, ['400 /data/foo']],
        [{ data: { type: 'articles', 'a/b~c': 1 } }, ['400 /data/a~1b~0c']],
        [
          { data: { type: 'articles', relationships: { author: person('1').data } } },
          ['400 /data/relationships/author'],
        ],
        [
          { data: { type: 'articles', relationships: { author: { data: [person('1').data] } } } },
          ['400 /data/relationships/author/data'],
        ],
        [
          { data: { type: 'articles', relationships: { author: { data: { type: 'people' } } } } },
          ['400 /data/relationships/author/data'],
        ],
        [
          { data: { type: 'articles', relationships: { tags: { data: [{ type: 'tags', id: 1 }] } } } },
          ['400 /data/relationships/tags/data/0/id'],
        ],
        [
          { data: { type: 'articles', relationships: { tags: { data: { type: 'tags', id: '1' } } } } },
          ['400 /data/relationships/tags/data'],
        ],
        [
          { data: { type: 'articles', relationships: { tags: { data: [{ type: 'tags', id: '1', x: 1 }] } } } },
          ['400 /data/relationships/tags/data/0/x'],
        ],
      ];
      for (const [body, expected] of cases) {
        const answer = await call('POST', '/articles', {
          body: typeof body === 'string' ? body : JSON.stringify(body),
          user: '1',
        });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(problems(answer), JSON.stringify(body)).toEqual(expected);
      }
      const relationship = await call('PATCH', '/articles/1/relationships/tags', {
        body: { data: { type: 'tags', id: '1' } },
        user: authorOf(1),
      });
      expect(problems(relationship)).toEqual(['400 /data']);
      const query = await call('POST', '/articles?sort=title', { body: { data: article({ title: 'x' }) }, user: '1' });
      expect(query.status).toBe(400);
      expect(query.doc.errors[0].source).toEqual({ parameter: 'sort' });
      expect(await total()).toBeGreaterThan(0);
    });

    it('403: client-generated ids, other authors, read-only and to-one relationships', async () => {
      const clientId = await post('/articles', { ...article({ title: 'x' }), id: '9999' }, '1');
      expect(problems(clientId)).toEqual(['403 /data/id']);
      expect(clientId.doc.errors[0].code).toBe('client_id');
      expect(
        problems(await patch('/articles/1', { type: 'articles', id: '1', attributes: { title: 'x' } }, '2')),
      ).toEqual(['403 -']);
      expect(problems(await del('/articles/1', undefined, '2'))).toEqual(['403 -']);
      expect(
        problems(await post('/articles/1/relationships/comments', [{ type: 'comments', id: '1' }], authorOf(1))),
      ).toEqual(['403 -']);
      expect(problems(await del('/tags/1/relationships/articles', [{ type: 'articles', id: '1' }]))).toEqual(['403 -']);
      expect(problems(await post('/comments/1/relationships/author', person('1').data))).toEqual(['403 -']);
    });

    it('404: missing resources and missing related resources', async () => {
      expect(
        problems(await patch('/articles/99999', { type: 'articles', id: '99999', attributes: { title: 'x' } }, '1')),
      ).toEqual(['404 -']);
      expect(
        problems(await patch('/articles/abc', { type: 'articles', id: 'abc', attributes: { title: 'x' } }, '1')),
      ).toEqual(['404 -']);
      expect(problems(await del('/people/99999'))).toEqual(['404 -']);
      expect(problems(await patch('/articles/99999/relationships/tags', [], '1'))).toEqual(['404 -']);
      expect(problems(await patch('/articles/1/relationships/nope', [], authorOf(1)))).toEqual(['404 -']);
      const linkage = await post(
        '/articles',
        article({ title: 'x' }, '99999', { tags: tagList('1', '424242', 'x') }),
        '1',
      );
      expect(linkage.status).toBe(404);
      expect(problems(linkage).sort()).toEqual([
        '404 /data/relationships/author/data',
        '404 /data/relationships/tags/data/1',
        '404 /data/relationships/tags/data/2',
      ]);
      const members = await post('/articles/1/relationships/tags', tagList('1', '77777').data, authorOf(1));
      expect(problems(members)).toEqual(['404 /data/1']);
      const toOne = await patch('/comments/1/relationships/author', { type: 'people', id: '0' });
      expect(problems(toOne)).toEqual(['404 /data']);
    });

    it('409: wrong type, id not the URL, related identifiers of the wrong type', async () => {
      expect(problems(await post('/articles', { type: 'people', attributes: { name: 'x' } }, '1'))).toEqual([
        '409 /data/type',
      ]);
      expect(problems(await patch('/articles/1', { type: 'articles', id: '2', attributes: {} }, authorOf(1)))).toEqual([
        '409 /data/id',
      ]);
      expect(problems(await patch('/articles/1', { type: 'comments', id: '1' }, authorOf(1)))).toEqual([
        '409 /data/type',
      ]);
      const related = await post(
        '/articles',
        article({ title: 'x' }, '1', {
          tags: {
            data: [
              { type: 'tags', id: '1' },
              { type: 'people', id: '1' },
            ],
          },
        }),
        '1',
      );
      expect(problems(related)).toEqual(['409 /data/relationships/tags/data/1/type']);
      const toOne = await post(
        '/articles',
        {
          type: 'articles',
          attributes: { title: 'x' },
          relationships: { author: { data: { type: 'tags', id: '1' } } },
        },
        '1',
      );
      expect(problems(toOne)).toEqual(['409 /data/relationships/author/data/type']);
      expect(
        problems(await patch('/articles/1/relationships/tags', [{ type: 'people', id: '1' }], authorOf(1))),
      ).toEqual(['409 /data/0/type']);
      // 409 and 422 together are answered under 400, each error keeping its own status.
      const mixed = await post(
        '/articles',
        { type: 'articles', attributes: { title: 3 }, relationships: { author: { data: { type: 'tags', id: '1' } } } },
        '1',
      );
      expect(mixed.status).toBe(400);
      expect(problems(mixed).sort()).toEqual([
        '409 /data/relationships/author/data/type',
        '422 /data/attributes/title',
      ]);
    });

    it('415: a body without the JSON:API media type, or with a parameter it does not allow', async () => {
      const malformed = [`${JSONAPI};ext`, `${JSONAPI}, ${JSONAPI}`];
      for (const contentType of [
        'application/json',
        'text/plain',
        `${JSONAPI}; charset=utf-8`,
        `${JSONAPI}; ext="https://example.com/ext"`,
        ...malformed,
      ]) {
        const answer = await call('POST', '/tags', {
          body: { data: { type: 'tags', attributes: { name: 'never' } } },
          contentType,
        });
        expect(answer.status, contentType).toBe(415);
        expect(problems(answer)).toEqual(['415 header:Content-Type']);
      }
      const response = await fetch(`${demo.url}/tags`, {
        method: 'POST',
        body: '{"data":{"type":"tags","attributes":{"name":"never"}}}',
      });
      expect(response.status).toBe(415);
      await json(response);
      expect(
        (
          await call('PATCH', '/articles/1/relationships/tags', {
            body: { data: [] },
            contentType: 'application/json',
            user: authorOf(1),
          })
        ).status,
      ).toBe(415);
      expect(ids((await get('/tags?filter[name]=never')).doc)).toEqual([]);
    });

    it('422: every field problem of a request, each at its member', async () => {
      const answer = await post(
        '/articles',
        {
          type: 'articles',
          attributes: { title: null, body: 42, status: 'archived', views: 1, author: '1' },
          relationships: { title: { data: null } },
        },
        '1',
      );
      expect(answer.status).toBe(422);
      expect(problems(answer)).toEqual([
        '422 /data/attributes/title',
        '422 /data/attributes/body',
        '422 /data/attributes/status',
        '422 /data/attributes/views',
        '422 /data/attributes/author',
        '422 /data/relationships/title',
      ]);
      expect(answer.doc.errors.map((e: Doc) => e.detail)).toEqual([
        'title must not be null',
        'body must be a string',
        'status must be one of "draft", "published"',
        'articles has no attribute "views"',
        'author is a relationship; send it under relationships',
        'title is an attribute; send it under attributes',
      ]);
      // Read-only members outrank value problems: the write is refused as such (403), each at its pointer.
      const readOnly = await post(
        '/articles',
        {
          type: 'articles',
          attributes: { title: null, createdAt: '2024-01-01T00:00:00Z' },
          relationships: { comments: { data: [] } },
        },
        '1',
      );
      expect(problems(readOnly)).toEqual(['403 /data/attributes/createdAt', '403 /data/relationships/comments']);
      // (author was sent, under attributes, so it is reported there rather than as missing)
      // Anonymous: the author is not taken from a user.
      const required = await post('/articles', { type: 'articles' });
      expect(problems(required)).toEqual(['422 /data/relationships/author']);
      const untitled = await post('/articles', { type: 'articles' }, '1');
      expect(problems(untitled)).toEqual(['422 /data']);
      const update = await patch('/people/1', { type: 'people', id: '1', attributes: { name: null, email: 5 } });
      expect(problems(update)).toEqual(['422 /data/attributes/name', '422 /data/attributes/email']);
      expect((await get('/people/1')).doc.data.attributes.name).not.toBeNull();
    });
  });

  it('clearing a required to-one (articles.author, comments.article) is 422, not 500', async () => {
    const relationship = await patch('/articles/2/relationships/author', null, authorOf(2));
    expect(problems(relationship)).toEqual(['422 /data']);
    const update = await patch('/comments/1', {
      type: 'comments',
      id: '1',
      relationships: { article: { data: null } },
    });
    expect(problems(update)).toEqual(['422 /data/relationships/article/data']);
  });

  describe('hostile payloads: stored exactly or refused clearly, never a 500', () => {
    const roundTrip = async (title: string, body: string | null = null) => {
      const created = await post('/articles', article({ title, body }), '1');
      expect(created.status).toBe(201);
      expect(created.doc.data.attributes.title).toBe(title);
      const read = await get(`/articles/${created.doc.data.id}`);
      expect(read.doc.data.attributes.title).toBe(title);
      expect(read.doc.data.attributes.body).toBe(body);
      return created.doc.data.id as string;
    };

    it('Unicode: astral planes, combining marks, RTL and bidi controls, ZWJ sequences', async () => {
      const strings = [
        '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟘𝟙𝟚 😀🎉 𐍈',
        'e\u0301 vs \u00e9, a\u030a\u0323, Z\u0351\u0352\u0357\u0358',
        'مرحبا بالعالم — שלום עולם',
        '\u202eRTL override\u202c \u200f\u200e',
        '👩‍👩‍👧‍👦 🏳️‍🌈 🇫🇷',
        '"quotes" \\ back\\slash \n\t\r line breaks',
        '\uFEFFBOM and \u2028 separators \u2029',
      ];
      for (const s of strings) await roundTrip(s, [...s].reverse().join(''));
      const id = await roundTrip('plain');
      const renamed = await patch(`/articles/${id}`, { type: 'articles', id, attributes: { title: strings[0] } }, '1');
      expect(renamed.doc.data.attributes.title).toBe(strings[0]);
      const found = await get(`/articles?filter[title]=${encodeURIComponent(strings[1]!)}`);
      expect(found.doc.data.map((a: Doc) => a.attributes.title)).toEqual([strings[1]]);
      const tag = await post('/tags', { type: 'tags', attributes: { name: 'ﬁ café 中文 🏷️' } });
      expect((await get(`/tags/${tag.doc.data.id}`)).doc.data.attributes.name).toBe('ﬁ café 中文 🏷️');
    });

    it('very long strings: 100,000 characters (and 100,000 astral ones) in an unindexed column round-trip', async () => {
      const id = await roundTrip('long body', 'x'.repeat(100_000));
      const astral = '😀'.repeat(100_000);
      const updated = await patch(`/articles/${id}`, { type: 'articles', id, attributes: { body: astral } }, '1');
      expect(updated.status).toBe(200);
      expect((await get(`/articles/${id}`)).doc.data.attributes.body).toBe(astral);
    });

    // PostgreSQL cannot put a value past ~2,700 bytes in a btree index (SQLSTATE 54000): the
    // demo indexes articles.title, people.name and tags.name, so there these are 422s.
    it('very long strings in indexed columns (title, tag and person names): stored exactly or a 4xx', async () => {
      // Incompressible (PostgreSQL compresses index entries): a fixed pseudo-random text.
      let seed = 7;
      const long = Array.from({ length: 100_000 }, () =>
        String.fromCharCode(33 + ((seed = (seed * 48271) % 2147483647) % 90)),
      ).join('');
      for (const [path, data, name] of [
        ['/articles', article({ title: long }), 'title'],
        ['/tags', { type: 'tags', attributes: { name: long } }, 'name'],
        ['/people', { type: 'people', attributes: { name: long } }, 'name'],
      ] as const) {
        const created = await post(path, data, '1');
        if (created.status === 201)
          expect((await get(`${path}/${created.doc.data.id}`)).doc.data.attributes[name], path).toBe(long);
        else expect(problems(created), path).toEqual([`422 /data/attributes/${name}`]);
      }
    });

    it('a body past the size limit is 413 and writes nothing', async () => {
      const before = await total();
      // Connection: close, see the keep-alive test at the end of this file.
      const response = await fetch(`${demo.url}/articles`, {
        method: 'POST',
        headers: { 'content-type': JSONAPI, authorization: 'Bearer 1', connection: 'close' },
        body: JSON.stringify({ data: article({ title: 'x'.repeat(1024 * 1024 + 1) }) }),
      });
      expect(response.status).toBe(413);
      const doc = await json(response);
      expect(doc.errors[0]).toMatchObject({ code: 'limit_exceeded', source: { header: 'Content-Length' } });
      expect(await total()).toBe(before);
    });

    it('null where not nullable, numbers, booleans, objects and arrays where strings belong: 422', async () => {
      for (const value of [null, 42, 0, true, { a: 1 }, ['x'], Infinity]) {
        const answer = await call('POST', '/articles', {
          body: `{"data":{"type":"articles","attributes":{"title":${JSON.stringify(value) ?? 'null'}},"relationships":{"author":{"data":{"type":"people","id":"1"}}}}}`,
          user: '1',
        });
        expect(answer.status, JSON.stringify(value)).toBe(422);
        expect(problems(answer)).toEqual(['422 /data/attributes/title']);
      }
      const raw = await call('POST', '/articles', {
        body: '{"data":{"type":"articles","attributes":{"title":1e400},"relationships":{"author":{"data":{"type":"people","id":"1"}}}}}',
        user: '1',
      });
      expect(problems(raw)).toEqual(['422 /data/attributes/title']);
      for (const value of [42, true]) {
        expect(problems(await post('/tags', { type: 'tags', attributes: { name: value } }))).toEqual([
          '422 /data/attributes/name',
        ]);
      }
      const nullable = await post('/articles', article({ title: 'no body', body: null }), '1');
      expect(nullable.doc.data.attributes.body).toBeNull();
    });

    it('__proto__, constructor and prototype as member names: 422 or 400 at their pointer; no prototype changes', async () => {
      const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
      const attributes = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'];
      for (const name of attributes) {
        const text = `{"data":{"type":"articles","attributes":{"title":"ok","${name}":{"polluted":true,"title":"evil"}},"relationships":{"author":{"data":{"type":"people","id":"1"}}}}}`;
        const answer = await call('POST', '/articles', { body: text, user: '1' });
        expect(answer.status, name).toBe(422);
        expect(problems(answer)).toEqual([`422 /data/attributes/${name}`]);
        expect(answer.doc.errors[0].detail).toBe(`articles has no attribute "${name}"`);
        const relationship = `{"data":{"type":"articles","attributes":{"title":"ok"},"relationships":{"author":{"data":{"type":"people","id":"1"}},"${name}":{"data":null}}}}`;
        expect(problems(await call('POST', '/articles', { body: relationship, user: '1' }))).toEqual([
          `422 /data/relationships/${name}`,
        ]);
      }
      const top = await call('POST', '/tags', {
        body: '{"__proto__":{"polluted":true},"data":{"type":"tags","attributes":{"name":"p"}}}',
      });
      expect(problems(top)).toEqual(['400 /__proto__']);
      const inData = await call('POST', '/tags', {
        body: '{"data":{"type":"tags","__proto__":{"polluted":true},"attributes":{"name":"p"}}}',
      });
      expect(problems(inData)).toEqual(['400 /data/__proto__']);
      const identifier = await call('POST', '/articles/1/relationships/tags', {
        body: '{"data":[{"type":"tags","id":"1","__proto__":{"id":"2"}}]}',
        user: authorOf(1),
      });
      expect(problems(identifier)).toEqual(['400 /data/0/__proto__']);
      const patchProto = await call('PATCH', '/people/2', {
        body: '{"data":{"type":"people","id":"2","attributes":{"__proto__":{"name":"evil"}}}}',
      });
      expect(problems(patchProto)).toEqual(['422 /data/attributes/__proto__']);

      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(({} as Record<string, unknown>).title).toBeUndefined();
      expect((await get('/people/2')).doc.data.attributes.name).not.toBe('evil');
      expect(ids((await get('/tags?filter[name]=p')).doc)).toEqual([]);
    });

    // SQLite stores a NUL; PostgreSQL's text cannot (SQLSTATE 22021): a 422 at the attribute.
    it('a NUL character is stored exactly or refused with a 4xx that says so', async () => {
      const title = 'nul \u0000 inside';
      const created = await post('/articles', article({ title }), '1');
      if (created.status === 201) {
        expect((await get(`/articles/${created.doc.data.id}`)).doc.data.attributes.title).toBe(title);
      } else {
        expect(problems(created)).toEqual(['422 /data/attributes/title']);
        expect(created.doc.errors[0].detail).toMatch(/NUL/);
      }
    });

    // JSON may escape a lone surrogate ("\ud800"); JSON.parse keeps it, but no UTF-8 database can
    // store it (SQLite reads back three U+FFFD, PostgreSQL one), so the runtime refuses it.
    it('a lone surrogate is refused (422 at its pointer), not silently replaced', async () => {
      const created = await call('POST', '/articles', {
        body: '{"data":{"type":"articles","attributes":{"title":"lone \\ud800 surrogate"},"relationships":{"author":{"data":{"type":"people","id":"1"}}}}}',
        user: '1',
      });
      if (created.status === 201) {
        expect((await get(`/articles/${created.doc.data.id}`)).doc.data.attributes.title).toBe('lone \ud800 surrogate');
      }
      expect(created.status).toBe(422);
      expect(problems(created)).toEqual(['422 /data/attributes/title']);
    });
  });

  describe('one request, one transaction', () => {
    // The article row is inserted first, then its tags in the join table; a tag listed twice
    // breaks the join table's primary key after the row insert. The row must not survive.
    it('a create whose join-table insert fails after the row insert leaves no article', async () => {
      const before = await total();
      const failed = await post('/articles', article({ title: 'Half written' }, '1', { tags: tagList('2', '2') }), '1');
      expect(failed.status).toBe(409);
      expect(failed.doc.errors[0].code).toBe('unique_violation');
      expect(await total()).toBe(before);
      expect(ids((await get(`/articles?filter[title]=${encodeURIComponent('Half written')}`)).doc)).toEqual([]);
      // and the next create works and is complete
      const ok = await post('/articles', article({ title: 'Whole' }, '1', { tags: tagList('2') }), '1');
      expect(ok.status).toBe(201);
      expect(await tagIds(ok.doc.data.id)).toEqual(['2']);
    });

    // A to-many replace deletes the current members, then inserts the new ones.
    it('a to-many replace that fails midway keeps the old members', async () => {
      const user = authorOf(7);
      await patch('/articles/7/relationships/tags', tagList('1', '2').data, user);
      expect(await tagIds('7')).toEqual(['1', '2']);
      const failed = await patch('/articles/7/relationships/tags', tagList('3', '3').data, user);
      expect(failed.status).toBe(409);
      expect(await tagIds('7')).toEqual(['1', '2']);
    });

    it('an update whose attributes are written before its tags fail changes nothing', async () => {
      const user = authorOf(8);
      const before = (await get('/articles/8')).doc.data.attributes;
      const failed = await patch(
        '/articles/8',
        { type: 'articles', id: '8', attributes: { title: 'Rolled back' }, relationships: { tags: tagList('4', '4') } },
        user,
      );
      expect(failed.status).toBe(409);
      expect((await get('/articles/8')).doc.data.attributes).toEqual(before);
    });
  });

  // The Node adapter answers 413 from Content-Length before reading the body; the connection
  // must not be reused for the next request (its unread body would be parsed as one).
  // Adapter-level, so run once (SQLite).
  (dialect === 'sqlite' ? it : it.skip)(
    'after an early 413, the next requests on a kept-alive connection still work',
    async () => {
      const big = await fetch(`${demo.url}/tags`, {
        method: 'POST',
        headers: { 'content-type': JSONAPI },
        body: JSON.stringify({ data: { type: 'tags', attributes: { name: 'x'.repeat(1024 * 1024 + 1) } } }),
      });
      expect(big.status).toBe(413);
      await big.text();
      for (let i = 0; i < 3; i++)
        expect((await fetch(`${demo.url}/tags/1`, { signal: AbortSignal.timeout(3000) })).status).toBe(200);
    },
  );
});
