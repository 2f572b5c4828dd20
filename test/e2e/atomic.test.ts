/**
 * Atomic Operations on the blog demo end to end (issue 7): `POST /operations` over HTTP with
 * fetch, on SQLite and on PostgreSQL. lids, all-or-nothing (read back over HTTP), malformed
 * operations with their pointers, and every example request of the extension's text
 * (shared/jsonapi/spec/ext-atomic/index.md) replayed, adapted to the blog's types and ids.
 * Every request and response document is validated against the (unofficial) Atomic
 * Operations schema, every resource in a result against the JSON:API 1.1 schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { expectValidAtomicDocument } from '../support/atomic-schema.js';
import { WRITE_SEED, authorOf, BACKENDS, startDemoOn } from '../support/demo.js';
import { type Doc, expectValidDocument, json } from '../support/validate.js';

const JSONAPI = 'application/vnd.api+json';
const EXT = 'https://jsonapi.org/ext/atomic';
const ATOMIC = `${JSONAPI};ext="${EXT}"`;

interface Answer {
  status: number;
  headers: Headers;
  doc: Doc;
}

describe.each(BACKENDS)('Atomic Operations on the blog demo (%s)', (dialect) => {
  let demo: Demo;

  beforeAll(async () => {
    demo = await startDemoOn(dialect, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  /** POST /operations; a well-formed request document is validated before it is sent. */
  async function operations(
    body: unknown,
    user?: string,
    { valid = true, contentType = ATOMIC } = {},
  ): Promise<Answer> {
    if (valid) expectValidAtomicDocument(body);
    const headers: Record<string, string> = { 'content-type': contentType, accept: ATOMIC };
    if (user !== undefined) headers.authorization = `Bearer ${user}`;
    const response = await fetch(`${demo.url}/operations`, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (response.status === 204) {
      expect(await response.text()).toBe('');
      return { status: 204, headers: response.headers, doc: undefined as unknown as Doc };
    }
    const text = await response.text();
    const doc = JSON.parse(text) as Doc;
    expectValidAtomicDocument(doc);
    if (response.status === 200) {
      expect(response.headers.get('content-type')).toBe(`${JSONAPI}; ext="${EXT}"`);
      expect(doc.jsonapi).toEqual({ version: '1.1', ext: [EXT] });
      for (const result of doc['atomic:results']) if ('data' in result) expectValidDocument({ data: result.data });
    } else {
      expectValidDocument(doc);
    }
    return { status: response.status, headers: response.headers, doc };
  }
  const ops = (...list: unknown[]) => ({ 'atomic:operations': list });
  async function get(path: string): Promise<Doc> {
    const response = await fetch(`${demo.url}${path}`, { headers: { accept: JSONAPI } });
    return { status: response.status, ...(await json(response)) };
  }
  const pointers = (answer: Answer) =>
    (answer.doc.errors as Doc[]).map((e) => `${e.status} ${e.source?.pointer ?? '-'}`);
  const ids = (doc: Doc) => (doc.data as Doc[]).map((r) => r.id as string);

  /** Everything a failed request could have touched, read over HTTP. */
  const snapshot = async () => ({
    total: (await get('/articles?page[limit]=1')).meta.total,
    newest: (await get('/articles?page[limit]=5&include=tags,author')).data,
    article1: await get('/articles/1?include=tags,author,comments'),
    tags: (await get('/tags?page[limit]=50')).data,
    people: (await get('/people?page[limit]=50')).data,
    comments: (await get('/articles/1/comments?page[limit]=100')).data,
  });

  it('creates an article and its tags with lids and links them in one request; read back over HTTP', async () => {
    const answer = await operations(
      ops(
        { op: 'add', data: { type: 'tags', lid: 't1', attributes: { name: 'atomic-1' } } },
        { op: 'add', data: { type: 'tags', lid: 't2', attributes: { name: 'atomic-2' } } },
        {
          op: 'add',
          data: {
            type: 'articles',
            lid: 'a1',
            attributes: { title: 'All at once' },
            relationships: {
              author: { data: { type: 'people', id: '2' } },
              tags: {
                data: [
                  { type: 'tags', lid: 't1' },
                  { type: 'tags', id: '1' },
                ],
              },
            },
          },
        },
        { op: 'add', ref: { type: 'articles', lid: 'a1', relationship: 'tags' }, data: [{ type: 'tags', lid: 't2' }] },
        { op: 'update', data: { type: 'articles', lid: 'a1', attributes: { body: 'Linked by lid' } } },
        {
          op: 'add',
          data: {
            type: 'comments',
            attributes: { body: 'First!' },
            relationships: {
              author: { data: { type: 'people', id: '3' } },
              article: { data: { type: 'articles', lid: 'a1' } },
            },
          },
        },
      ),
      '2',
    );
    expect(answer.status).toBe(200);
    const results = answer.doc['atomic:results'] as Doc[];
    expect(results).toHaveLength(6);
    const [t1, t2, created, linked, updated, comment] = results;
    expect(t1!.data).toMatchObject({ type: 'tags', attributes: { name: 'atomic-1' } });
    expect(t2!.data).toMatchObject({ type: 'tags', attributes: { name: 'atomic-2' } });
    expect(created!.data).toMatchObject({ type: 'articles', attributes: { title: 'All at once', status: 'draft' } });
    expect(created!.data.links.self).toBe(`${demo.url}/articles/${created!.data.id}`);
    expect(linked).toEqual({});
    expect(updated!.data).toMatchObject({
      id: created!.data.id,
      attributes: { title: 'All at once', body: 'Linked by lid' },
    });
    expect(comment!.data.relationships.article.links.related).toBe(`${demo.url}/comments/${comment!.data.id}/article`);

    const id = created!.data.id as string;
    const read = await get(`/articles/${id}?include=tags,author,comments`);
    expect(read.data.attributes).toMatchObject({ title: 'All at once', body: 'Linked by lid' });
    expect(read.data.relationships.author.data).toEqual({ type: 'people', id: '2' });
    expect(read.data.relationships.tags.data.map((t: Doc) => t.id).sort()).toEqual(
      ['1', t1!.data.id, t2!.data.id].sort(),
    );
    expect(read.data.relationships.comments.data).toEqual([{ type: 'comments', id: comment!.data.id }]);
    expect(ids(await get(`/tags/${t2!.data.id}/articles`))).toEqual([id]);
  });

  it('a failing third operation leaves the database exactly as before (read back over HTTP)', async () => {
    const before = await snapshot();
    const failures: Array<[string, unknown, string[]]> = [
      [
        '422: a required attribute missing',
        { op: 'add', data: { type: 'articles', attributes: { body: 'no title' } } },
        ['422 /atomic:operations/2/data/attributes'],
      ],
      [
        '404: removing what does not exist',
        { op: 'remove', ref: { type: 'tags', id: '99999' } },
        ['404 /atomic:operations/2'],
      ],
      [
        '403: another author',
        { op: 'update', data: { type: 'articles', id: '2', attributes: { title: 'never' } } },
        ['403 /atomic:operations/2'],
      ],
      [
        '409: a duplicate tag name (unique)',
        { op: 'add', data: { type: 'tags', attributes: { name: 'json' } } },
        ['409 /atomic:operations/2/data/attributes/name'],
      ],
      [
        '409: the join table after the row insert',
        {
          op: 'add',
          data: {
            type: 'articles',
            attributes: { title: 'never' },
            relationships: {
              author: { data: { type: 'people', id: '1' } },
              tags: {
                data: [
                  { type: 'tags', id: '3' },
                  { type: 'tags', id: '3' },
                ],
              },
            },
          },
        },
        ['409 /atomic:operations/2'],
      ],
    ];
    for (const [what, third, expected] of failures) {
      const answer = await operations(
        ops(
          { op: 'add', data: { type: 'tags', lid: 'x', attributes: { name: `rolled back ${what}` } } },
          // article 1 is person 1's: these two writes succeed before the third fails
          {
            op: 'update',
            data: {
              type: 'articles',
              id: '1',
              attributes: { title: 'never kept' },
              relationships: { tags: { data: [{ type: 'tags', lid: 'x' }] } },
            },
          },
          third,
        ),
        authorOf(1),
      );
      expect(pointers(answer), what).toEqual(expected);
      expect(await snapshot(), what).toEqual(before);
    }
    // the same three without the failure do happen
    const ok = await operations(
      ops(
        { op: 'add', data: { type: 'tags', lid: 'x', attributes: { name: 'kept' } } },
        { op: 'update', ref: { type: 'articles', id: '1', relationship: 'tags' }, data: [{ type: 'tags', lid: 'x' }] },
        { op: 'remove', ref: { type: 'articles', id: '1', relationship: 'tags' }, data: [{ type: 'tags', lid: 'x' }] },
      ),
      authorOf(1),
    );
    expect(ok.status).toBe(200);
    expect(ok.doc['atomic:results'].slice(1)).toEqual([{}, {}]);
    expect(ids(await get('/articles/1/relationships/tags'))).toEqual([]);
  });

  it('malformed operations: 400 with the pointer of the operation, and nothing runs', async () => {
    const tag = { op: 'add', data: { type: 'tags', attributes: { name: 'should not exist' } } };
    const cases: Array<[unknown, string]> = [
      [{ data: { type: 'tags', attributes: { name: 'x' } } }, '/atomic:operations/1'],
      [{ op: 'create', data: { type: 'tags', attributes: { name: 'x' } } }, '/atomic:operations/1/op'],
      [{ op: 7, data: { type: 'tags', attributes: { name: 'x' } } }, '/atomic:operations/1/op'],
      [{ op: 'remove', ref: { type: 'tags', id: '1' }, href: '/tags/1' }, '/atomic:operations/1'],
      [{ op: 'remove', ref: 'tags/1' }, '/atomic:operations/1/ref'],
      [{ op: 'remove', ref: { id: '1' } }, '/atomic:operations/1/ref'],
      [{ op: 'remove', ref: { type: 'tags' } }, '/atomic:operations/1/ref'],
      [{ op: 'remove', ref: { type: 'tags', id: '1', lid: 'a' } }, '/atomic:operations/1/ref'],
      [{ op: 'remove', ref: { type: 'tags', id: 1 } }, '/atomic:operations/1/ref/id'],
      [{ op: 'remove', ref: { type: 'tags', id: '1', extra: true } }, '/atomic:operations/1/ref/extra'],
      [{ op: 'remove', ref: { type: 'tags', lid: 'never-assigned' } }, '/atomic:operations/1/ref/lid'],
      [{ op: 'remove', href: '/articles/1/relationships' }, '/atomic:operations/1/href'],
      [{ op: 'remove', href: '/articles/1/author' }, '/atomic:operations/1/href'],
      [{ op: 'remove', href: 42 }, '/atomic:operations/1/href'],
      [{ op: 'remove' }, '/atomic:operations/1'],
      [{ op: 'add' }, '/atomic:operations/1'],
      [{ op: 'add', data: [] }, '/atomic:operations/1/data'],
      [{ op: 'add', ref: { type: 'tags', id: '1' }, data: { type: 'tags' } }, '/atomic:operations/1/ref'],
      [{ op: 'update', ref: { type: 'articles', id: '1', relationship: 'tags' } }, '/atomic:operations/1'],
      [
        { op: 'add', data: { type: 'articles', relationships: { tags: { data: [{ type: 'tags', lid: 'later' }] } } } },
        '/atomic:operations/1/data/relationships/tags/data/0/lid',
      ],
      [{ op: 'add', data: { type: 'tags', attributes: { name: 'x' } }, included: [] }, '/atomic:operations/1/included'],
      ['not an object', '/atomic:operations/1'],
    ];
    for (const [operation, pointer] of cases) {
      const answer = await operations(ops(tag, operation), '1', { valid: false });
      expect(answer.status, JSON.stringify(operation)).toBe(400);
      expect(pointers(answer), JSON.stringify(operation)).toEqual([`400 ${pointer}`]);
    }
    for (const [document, pointer] of [
      [{}, ''],
      [[], ''],
      [{ 'atomic:operations': [] }, '/atomic:operations'],
      [{ 'atomic:operations': {} }, ''],
      [{ 'atomic:operations': [tag], data: {} }, '/data'],
    ] as const) {
      const answer = await operations(document, '1', { valid: false });
      expect(pointers(answer), JSON.stringify(document)).toEqual([`400 ${pointer}`]);
    }
    expect((await operations('{"atomic:operations": [', '1', { valid: false })).status).toBe(400);
    // Well formed, but naming a type the API does not serve: 404 at the operation (after the
    // first operation ran, and was undone).
    for (const operation of [
      { op: 'remove', href: '/nowhere/1' },
      { op: 'remove', ref: { type: 'nowhere', id: '1' } },
    ]) {
      expect(pointers(await operations(ops(tag, operation), '1')), JSON.stringify(operation)).toEqual([
        '404 /atomic:operations/1',
      ]);
    }
    expect(ids(await get(`/tags?filter[name]=${encodeURIComponent('should not exist')}`))).toEqual([]);
  });

  it('media types: 415 without the extension, 405 for GET; the extension is refused on other endpoints', async () => {
    const body = ops({ op: 'add', data: { type: 'tags', attributes: { name: 'media' } } });
    expect((await operations(body, '1', { contentType: JSONAPI })).status).toBe(415);
    const getOps = await fetch(`${demo.url}/operations`, { headers: { accept: ATOMIC } });
    expect(getOps.status).toBe(405);
    expect(getOps.headers.get('allow')).toBe('POST');
    const rest = await fetch(`${demo.url}/tags`, {
      method: 'POST',
      headers: { 'content-type': ATOMIC, accept: JSONAPI },
      body: JSON.stringify(body),
    });
    expect(rest.status).toBe(400);
    expect(ids(await get('/tags?filter[name]=media'))).toEqual([]);
  });

  describe('every example of the extension text, replayed (types and ids adapted)', () => {
    it('"Creating Resources": href /blogPosts → /articles; 422 as written (author is required), 200 with the author', async () => {
      const literal = await operations(
        ops({
          op: 'add',
          href: '/articles',
          data: { type: 'articles', attributes: { title: 'JSON API paints my bikeshed!' } },
        }),
      );
      expect(literal.status).toBe(422);
      expect(literal.doc.errors).toMatchObject([
        {
          status: '422',
          detail: 'author is required',
          source: { pointer: '/atomic:operations/0/data/relationships/author' },
        },
      ]);

      const answer = await operations(
        ops({
          op: 'add',
          href: '/articles',
          data: {
            type: 'articles',
            attributes: { title: 'JSON API paints my bikeshed!' },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        }),
      );
      expect(answer.status).toBe(200);
      const [result] = answer.doc['atomic:results'];
      expect(Object.keys(answer.doc)).toEqual(['jsonapi', 'atomic:results']);
      expect(result.data).toMatchObject({
        links: { self: `${demo.url}/articles/${result.data.id}` },
        type: 'articles',
        attributes: { title: 'JSON API paints my bikeshed!' },
      });
    });

    it('"Updating Resources": 200 with the resource as data (the server also sets updatedAt)', async () => {
      const answer = await operations(
        ops({ op: 'update', data: { type: 'articles', id: '13', attributes: { title: 'To TDD or Not' } } }),
        authorOf(13),
      );
      expect(answer.status).toBe(200);
      expect(answer.doc['atomic:results']).toHaveLength(1);
      expect(answer.doc['atomic:results'][0].data).toMatchObject({
        type: 'articles',
        id: '13',
        attributes: { title: 'To TDD or Not' },
      });
      expect((await get('/articles/13')).data.attributes.title).toBe('To TDD or Not');
    });

    it('"Updating To-One Relationships", assign: author 9 → 4, 204', async () => {
      const assign = await operations(
        ops({
          op: 'update',
          ref: { type: 'articles', id: '14', relationship: 'author' },
          data: { type: 'people', id: '4' },
        }),
        authorOf(14),
      );
      expect(assign.status).toBe(204);
      expect((await get('/articles/14/relationships/author')).data).toEqual({ type: 'people', id: '4' });
    });

    it('"Updating To-One Relationships", clear: 422, author is required', async () => {
      const clear = await operations(
        ops({ op: 'update', ref: { type: 'articles', id: '14', relationship: 'author' }, data: null }),
        '4',
      );
      expect(clear.status).toBe(422);
      expect(pointers(clear)).toEqual(['422 /atomic:operations/0/data']);
    });

    it('"Updating To-Many Relationships": add and remove on comments are 403 (read-only in the demo); replace tags 204', async () => {
      const add = await operations(
        ops({
          op: 'add',
          ref: { type: 'articles', id: '1', relationship: 'comments' },
          data: [{ type: 'comments', id: '100' }],
        }),
        authorOf(1),
      );
      expect(add.status).toBe(403);
      expect(add.doc.errors).toMatchObject([{ code: 'read_only', source: { pointer: '/atomic:operations/0' } }]);
      const replace = await operations(
        ops({
          op: 'update',
          ref: { type: 'articles', id: '1', relationship: 'tags' },
          data: [
            { type: 'tags', id: '2' },
            { type: 'tags', id: '3' },
          ],
        }),
        authorOf(1),
      );
      expect(replace.status).toBe(204);
      expect(ids(await get('/articles/1/relationships/tags')).sort()).toEqual(['2', '3']);
      const remove = await operations(
        ops({
          op: 'remove',
          ref: { type: 'articles', id: '1', relationship: 'comments' },
          data: [
            { type: 'comments', id: '12' },
            { type: 'comments', id: '13' },
          ],
        }),
        authorOf(1),
      );
      expect(remove.status).toBe(403);
      // the same two on the writable to-many, tags
      expect(
        (
          await operations(
            ops({
              op: 'add',
              ref: { type: 'articles', id: '1', relationship: 'tags' },
              data: [{ type: 'tags', id: '12' }],
            }),
            authorOf(1),
          )
        ).status,
      ).toBe(204);
      expect(
        (
          await operations(
            ops({
              op: 'remove',
              ref: { type: 'articles', id: '1', relationship: 'tags' },
              data: [
                { type: 'tags', id: '2' },
                { type: 'tags', id: '3' },
              ],
            }),
            authorOf(1),
          )
        ).status,
      ).toBe(204);
      expect(ids(await get('/articles/1/relationships/tags'))).toEqual(['12']);
    });

    it('"Deleting Resources": 204 and no document', async () => {
      const answer = await operations(ops({ op: 'remove', ref: { type: 'articles', id: '13' } }), authorOf(13));
      expect(answer.status).toBe(204);
      expect((await get('/articles/13')).status).toBe(404);
    });

    it('"Processing Multiple Operations": client-generated UUIDs are 403 (the demo takes none); with lids, 200', async () => {
      const author = 'acb2ebd6-ed30-4877-80ce-52a14d77d470';
      const articleId = 'bb3ad581-806f-4237-b748-f2ea0261845c';
      const before = await snapshot();
      const literal = await operations(
        ops(
          { op: 'add', data: { type: 'people', id: author, attributes: { name: 'dgeb' } } },
          {
            op: 'add',
            data: {
              type: 'articles',
              id: articleId,
              attributes: { title: 'JSON API paints my bikeshed!' },
              relationships: { author: { data: { type: 'people', id: author } } },
            },
          },
        ),
      );
      expect(literal.status).toBe(403);
      expect(literal.doc.errors).toMatchObject([
        { code: 'client_id', source: { pointer: '/atomic:operations/0/data/id' } },
      ]);
      expect(await snapshot()).toEqual(before);

      const answer = await operations(
        ops(
          { op: 'add', data: { type: 'people', lid: author, attributes: { name: 'dgeb' } } },
          {
            op: 'add',
            data: {
              type: 'articles',
              lid: articleId,
              attributes: { title: 'JSON API paints my bikeshed!' },
              relationships: { author: { data: { type: 'people', lid: author } } },
            },
          },
        ),
      );
      expect(answer.status).toBe(200);
      const [person, article] = answer.doc['atomic:results'];
      expect(person.data).toMatchObject({
        type: 'people',
        links: { self: `${demo.url}/people/${person.data.id}` },
        attributes: { name: 'dgeb' },
      });
      expect(article.data).toMatchObject({
        type: 'articles',
        links: { self: `${demo.url}/articles/${article.data.id}` },
        attributes: { title: 'JSON API paints my bikeshed!' },
        relationships: {
          author: {
            links: {
              self: `${demo.url}/articles/${article.data.id}/relationships/author`,
              related: `${demo.url}/articles/${article.data.id}/author`,
            },
          },
        },
      });
      expect((await get(`/articles/${article.data.id}/author`)).data.id).toBe(person.data.id);
      expect(JSON.stringify(answer.doc)).not.toContain(author);
    });
  });
});
