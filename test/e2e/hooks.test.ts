/**
 * The demo's application behaviour (examples/blog/README.md, "Application behaviour") on every
 * backend: an article's author taken from the signed-in user (a `saving` hook), a comment's body
 * writable on update only by its author (a field write policy), no published article without a
 * body (the resource's `validate`), over REST and Atomic Operations, nothing written when refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, WRITE_SEED, startDemoOn } from '../support/demo.js';

const JSONAPI = 'application/vnd.api+json';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

type Doc = {
  data?: { id: string; attributes: Record<string, unknown>; relationships: Record<string, { data?: unknown }> };
  errors?: Array<{ status: string; code?: string; source?: { pointer?: string } }>;
  meta?: { total?: number };
};

describe.each(BACKENDS)('application behaviour on the blog demo (%s)', (backend) => {
  let demo: Demo;
  beforeAll(async () => {
    demo = await startDemoOn(backend, WRITE_SEED);
  });
  afterAll(async () => demo?.close());

  async function call(method: string, path: string, body?: unknown, user?: string, type = JSONAPI) {
    const headers: Record<string, string> = { accept: type };
    if (user !== undefined) headers.authorization = `Bearer ${user}`;
    if (body !== undefined) headers['content-type'] = type;
    const response = await fetch(`${demo.url}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, doc: (text === '' ? {} : JSON.parse(text)) as Doc };
  }
  const pointers = (doc: Doc) => doc.errors?.map((e) => [e.status, e.code, e.source?.pointer]);
  const total = async (title: string) =>
    (await call('GET', `/articles?filter[title]=${encodeURIComponent(title)}&page[limit]=1`)).doc.meta?.total;
  const article = (title: string, attributes: Record<string, unknown> = {}) => ({
    type: 'articles',
    attributes: { title, ...attributes },
  });

  it('sets a created article’s author to the signed-in user when the client sends none', async () => {
    const created = await call('POST', '/articles?include=author', { data: article(`mine ${backend}`) }, '3');
    expect(created.status).toBe(201);
    expect(created.doc.data!.relationships.author!.data).toEqual({ type: 'people', id: '3' });
    // A sent author wins over the user.
    const sent = await call(
      'POST',
      '/articles?include=author',
      { data: { ...article(`theirs ${backend}`), relationships: { author: { data: { type: 'people', id: '2' } } } } },
      '3',
    );
    expect(sent.doc.data!.relationships.author!.data).toEqual({ type: 'people', id: '2' });
  });

  it('keeps an anonymous create without an author 422 at /data/relationships/author, writing nothing', async () => {
    const title = `anonymous ${backend}`;
    const answer = await call('POST', '/articles', { data: article(title) });
    expect(answer.status).toBe(422);
    expect(pointers(answer.doc)).toEqual([['422', 'required', '/data/relationships/author']]);
    expect(await total(title)).toBe(0);
  });

  it('refuses a comment’s body on update to anyone but its author, 403 read_only, nothing changed', async () => {
    const comment = (await call('GET', '/comments/1?include=author')).doc.data!;
    const author = (comment.relationships.author!.data as { id: string }).id;
    const other = author === '1' ? '2' : '1';
    const edit = { type: 'comments', id: '1', attributes: { body: 'rewritten' } };
    for (const user of [other, undefined]) {
      const refused = await call('PATCH', '/comments/1', { data: edit }, user);
      expect(refused.status).toBe(403);
      expect(pointers(refused.doc)).toEqual([['403', 'read_only', '/data/attributes/body']]);
    }
    expect((await call('GET', '/comments/1')).doc.data!.attributes.body).toBe(comment.attributes.body);
    // Its relationships stay writable by anyone.
    const moved = await call(
      'PATCH',
      '/comments/1',
      { data: { type: 'comments', id: '1', relationships: { article: { data: { type: 'articles', id: '2' } } } } },
      other,
    );
    expect(moved.status).toBe(200);
    const mine = await call('PATCH', '/comments/1', { data: edit }, author);
    expect(mine.status).toBe(200);
    expect(mine.doc.data!.attributes.body).toBe('rewritten');
  });

  it('lets anyone write a comment’s body on create', async () => {
    const created = await call('POST', '/comments', {
      data: {
        type: 'comments',
        attributes: { body: 'hello' },
        relationships: {
          author: { data: { type: 'people', id: '4' } },
          article: { data: { type: 'articles', id: '1' } },
        },
      },
    });
    expect(created.status).toBe(201);
  });

  it('refuses a comment’s body inside Atomic Operations too, rolling back the whole batch', async () => {
    const comment = (await call('GET', '/comments/2?include=author')).doc.data!;
    const author = (comment.relationships.author!.data as { id: string }).id;
    const other = author === '1' ? '2' : '1';
    const title = `batch ${backend}`;
    const answer = await call(
      'POST',
      '/operations',
      {
        'atomic:operations': [
          { op: 'add', data: article(title) },
          { op: 'update', data: { type: 'comments', id: '2', attributes: { body: 'not yours' } } },
        ],
      },
      other,
      ATOMIC,
    );
    expect(answer.status).toBe(403);
    expect(pointers(answer.doc)).toEqual([['403', 'read_only', '/atomic:operations/1/data/attributes/body']]);
    expect(await total(title)).toBe(0);
    expect((await call('GET', '/comments/2')).doc.data!.attributes.body).toBe(comment.attributes.body);
  });

  it('refuses a published article without a body, 422 at the member sent', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ status: 'published' }, '/data/attributes/status'],
      [{ status: 'published', body: '' }, '/data/attributes/body'],
      [{ status: 'published', body: null }, '/data/attributes/body'],
    ];
    for (const [attributes, pointer] of cases) {
      const title = `unpublishable ${backend} ${pointer}`;
      const answer = await call('POST', '/articles', { data: article(title, attributes) }, '1');
      expect(answer.status).toBe(422);
      expect(pointers(answer.doc)).toEqual([['422', 'invalid_value', pointer]]);
      expect(await total(title)).toBe(0);
    }
    // Article 1 is person 1's; its stored body decides when only the status is sent.
    const emptied = await call(
      'PATCH',
      '/articles/1',
      { data: { type: 'articles', id: '1', attributes: { body: '', status: 'draft' } } },
      '1',
    );
    expect(emptied.status).toBe(200);
    const publish = await call(
      'PATCH',
      '/articles/1',
      { data: { type: 'articles', id: '1', attributes: { status: 'published' } } },
      '1',
    );
    expect(publish.status).toBe(422);
    expect(pointers(publish.doc)).toEqual([['422', 'invalid_value', '/data/attributes/status']]);
    expect((await call('GET', '/articles/1')).doc.data!.attributes.status).toBe('draft');
    // A write that sends neither member is not affected.
    const renamed = await call(
      'PATCH',
      '/articles/1',
      { data: { type: 'articles', id: '1', attributes: { title: 'Renamed' } } },
      '1',
    );
    expect(renamed.status).toBe(200);
    const published = await call(
      'PATCH',
      '/articles/1',
      { data: { type: 'articles', id: '1', attributes: { status: 'published', body: 'Now there is one' } } },
      '1',
    );
    expect(published.status).toBe(200);
  });
});
