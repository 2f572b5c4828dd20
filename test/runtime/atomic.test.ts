import { describe, expect, it } from 'vitest';
import { ATOMIC_EXT, atomic } from 'jsonapi-gen';
import { expectValidAtomicDocument } from '../support/atomic-schema.js';
import { expectValidDocument } from '../support/validate.js';
import { store } from '../support/write-host.js';

const ATOMIC = `application/vnd.api+json; ext="${ATOMIC_EXT}"`;

function host(maxOperations?: number) {
  const s = store({ extensions: [atomic(maxOperations === undefined ? {} : { maxOperations })] });
  const post = (body: unknown, headers: Record<string, string> = {}, user = '1') =>
    s.api.fetch(
      new Request('http://localhost/operations', {
        method: 'POST',
        headers: { 'content-type': ATOMIC, accept: ATOMIC, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
      { attributes: { user } },
    );
  return { ...s, post };
}

async function results(response: Response) {
  const document = await response.json();
  expectValidAtomicDocument(document);
  return document;
}

const ops = (...operations: unknown[]) => ({ 'atomic:operations': operations });
const addTag = (lid: string, name: string) => ({ op: 'add', data: { type: 'tags', lid, attributes: { name } } });

describe('Atomic Operations', () => {
  it('creates an article and its tags with lids and links them in one request', async () => {
    const { post, tagsOf, tables } = host();
    const response = await post(
      ops(
        addTag('t1', 'new'),
        addTag('t2', 'newer'),
        {
          op: 'add',
          data: {
            type: 'articles',
            lid: 'a1',
            attributes: { title: 'Atomic' },
            relationships: {
              author: { data: { type: 'people', id: '1' } },
              tags: {
                data: [
                  { type: 'tags', lid: 't1' },
                  { type: 'tags', lid: 't2' },
                ],
              },
            },
          },
        },
        { op: 'update', data: { type: 'articles', lid: 'a1', attributes: { body: 'Linked' } } },
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(ATOMIC);
    const document = await results(response);
    expect(document.jsonapi).toEqual({ version: '1.1', ext: [ATOMIC_EXT] });
    const [t1, t2, article, updated] = document['atomic:results'];
    expect(t1.data).toMatchObject({ type: 'tags', id: '3', attributes: { name: 'new' } });
    expect(t2.data.id).toBe('4');
    expect(article.data).toMatchObject({ type: 'articles', id: '2', attributes: { title: 'Atomic' } });
    expect(updated.data.attributes.body).toBe('Linked');
    for (const result of document['atomic:results']) expectValidDocument({ data: result.data });
    expect(tagsOf(2)).toEqual([3, 4]);
    expect(tables.articles).toHaveLength(2);
  });

  it('undoes every earlier operation when the third fails', async () => {
    const { post, tables } = host();
    const before = structuredClone(tables);
    const response = await post(
      ops(
        addTag('t1', 'a'),
        {
          op: 'update',
          ref: { type: 'articles', id: '1' },
          data: { type: 'articles', id: '1', attributes: { body: 'changed' } },
        },
        {
          op: 'add',
          data: {
            type: 'articles',
            attributes: { title: 42 },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        },
      ),
    );
    expect(response.status).toBe(422);
    const document = await results(response);
    expect(document.errors[0].source.pointer).toBe('/atomic:operations/2/data/attributes/title');
    expect(tables).toEqual(before);
  });

  it.each([
    ['a missing op', ops({ ref: { type: 'articles', id: '1' } }), '/atomic:operations/0'],
    ['an unknown op', ops({ op: 'upsert', data: {} }), '/atomic:operations/0/op'],
    [
      'both ref and href',
      ops({ op: 'remove', ref: { type: 'articles', id: '1' }, href: '/articles/1' }),
      '/atomic:operations/0',
    ],
    ['a ref without type', ops({ op: 'remove', ref: { id: '1' } }), '/atomic:operations/0/ref'],
    [
      'a ref with id and lid',
      ops({ op: 'remove', ref: { type: 'articles', id: '1', lid: 'x' } }),
      '/atomic:operations/0/ref',
    ],
    [
      'a ref with an unknown member',
      ops({ op: 'remove', ref: { type: 'articles', id: '1', rel: 'x' } }),
      '/atomic:operations/0/ref/rel',
    ],
    ['an operation that is not an object', ops(addTag('t', 'x'), 'remove'), '/atomic:operations/1'],
    ['an add without data', ops({ op: 'add', href: '/tags' }), '/atomic:operations/0'],
    ['an unknown lid', ops({ op: 'remove', ref: { type: 'tags', lid: 'nope' } }), '/atomic:operations/0/ref/lid'],
    [
      'a lid used before it is assigned',
      ops({ op: 'remove', ref: { type: 'tags', lid: 't' } }, addTag('t', 'x')),
      '/atomic:operations/0/ref/lid',
    ],
    ['no operations', ops(), '/atomic:operations'],
    ['data at the top level', { data: {} }, '/data'],
  ])('%s → 400 with the pointer of the operation', async (_name, body, pointer) => {
    const { post, tables } = host();
    const before = structuredClone(tables);
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((await results(response)).errors[0].source.pointer).toBe(pointer);
    expect(tables).toEqual(before);
  });

  it('targets resources and relationships by href, and answers 204 when no result has data', async () => {
    const { post, tagsOf, tables } = host();
    const response = await post(
      ops(
        { op: 'add', href: '/articles/1/relationships/tags', data: [{ type: 'tags', id: '2' }] },
        { op: 'remove', ref: { type: 'articles', id: '1', relationship: 'tags' }, data: [{ type: 'tags', id: '1' }] },
        { op: 'update', ref: { type: 'articles', id: '1', relationship: 'author' }, data: { type: 'people', id: '2' } },
      ),
    );
    expect(response.status).toBe(204);
    expect(tagsOf(1)).toEqual([2]);
    expect(tables.articles![0]!.authorId).toBe(2);
    const removal = await post(ops({ op: 'remove', href: '/articles/1' }));
    expect(removal.status).toBe(204);
    expect(tables.articles).toHaveLength(0);
  });

  it('refuses what the REST endpoint refuses: another author cannot update through an operation', async () => {
    const { post, tables } = host();
    const response = await post(
      ops({ op: 'update', data: { type: 'articles', id: '1', attributes: { title: 'Stolen' } } }),
      {},
      '2',
    );
    expect(response.status).toBe(403);
    expect((await results(response)).errors[0].source.pointer).toBe('/atomic:operations/0');
    expect(tables.articles![0]!.title).toBe('First');
  });

  it('refuses more operations than the limit before running any', async () => {
    const { post, tables } = host(3);
    const response = await post(ops(...['a', 'b', 'c', 'd'].map((n) => addTag(n, n))));
    expect(response.status).toBe(400);
    const document = await results(response);
    expect(document.errors[0]).toMatchObject({
      code: 'too_many_operations',
      source: { pointer: '/atomic:operations' },
      meta: { limit: 3 },
    });
    expect(tables.tags).toHaveLength(2);
  });

  it.each([
    ['no ext in Content-Type', 415, { 'content-type': 'application/vnd.api+json' }],
    ['a plain JSON Content-Type', 415, { 'content-type': 'application/json' }],
    ['an Accept without the extension', 406, { accept: 'application/vnd.api+json' }],
  ])('negotiation: %s → %i', async (_name, status, headers) => {
    const { post } = host();
    expect((await post(ops(addTag('t', 'x')), headers)).status).toBe(status);
  });

  it('is not served, and its media type is refused, when the extension is off', async () => {
    const { api } = store();
    const request = (path: string) =>
      new Request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'content-type': ATOMIC },
        body: JSON.stringify(ops(addTag('t', 'x'))),
      });
    expect((await api.fetch(request('/operations'))).status).toBe(404);
    expect((await api.fetch(request('/tags'))).status).toBe(415);
  });

  it('answers GET on the operations path with 405', async () => {
    const { api } = host();
    const response = await api.fetch(new Request('http://localhost/operations'));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});
