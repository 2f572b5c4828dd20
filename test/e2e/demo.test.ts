/**
 * The blog demo end to end: `startDemo` on a free loopback port, driven over HTTP with fetch,
 * on SQLite and on PostgreSQL. Every response document is checked against the JSON:API schema.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, startDemoOn } from '../support/demo.js';
import { expectValidDocument } from '../support/validate.js';

const JSONAPI = 'application/vnd.api+json';

describe.each(BACKENDS)('the blog demo on %s', (dialect) => {
  let demo: Demo;

  beforeAll(async () => {
    demo = await startDemoOn(dialect, 120);
  });
  afterAll(async () => demo?.close());

  async function call(
    path: string,
    init: { method?: string; user?: string } = {},
  ): Promise<{ status: number; body: any; headers: Headers }> {
    const headers: Record<string, string> = { accept: JSONAPI };
    if (init.user !== undefined) headers.authorization = `Bearer ${init.user}`;
    const response = await fetch(`${demo.url}${path}`, { method: init.method ?? 'GET', headers });
    const text = await response.text();
    const body = text === '' ? undefined : JSON.parse(text);
    if (body !== undefined) expectValidDocument(body);
    return { status: response.status, body, headers: response.headers };
  }
  const ids = (body: any) => body.data.map((r: any) => r.id);
  const total = async () => (await call('/articles?page[limit]=1')).body.meta.total as number;

  it('listens on 127.0.0.1 and answers JSON:API', async () => {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { status, headers, body } = await call('/articles');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe(JSONAPI);
    expect(body.data).toHaveLength(20);
  });

  it('sorts', async () => {
    const { body } = await call('/articles?sort=title&page[limit]=50');
    const titles = body.data.map((a: any) => a.attributes.title);
    expect(titles).toEqual([...titles].sort());
    const { body: newest } = await call('/articles?page[limit]=3');
    expect(ids(newest)).toEqual(['120', '119', '118']);
    const { body: people } = await call('/people?sort=-name');
    const names = people.data.map((p: any) => p.attributes.name);
    expect(names).toEqual([...names].sort().reverse());
  });

  it('filters by a string and by an array', async () => {
    const one = await call(`/articles?filter[title]=${encodeURIComponent('Caching in practice, part 4')}`);
    expect(ids(one.body)).toEqual(['4']);
    const two = await call('/articles?filter[author][]=2&filter[author][]=3&page[limit]=50');
    expect(two.body.meta.total).toBe(48);
    const authors = await call(
      '/articles?filter[author][]=2&filter[author][]=3&include=author&fields[people]=name&page[limit]=50',
    );
    expect(new Set(authors.body.data.map((a: any) => a.relationships.author.data.id))).toEqual(new Set(['2', '3']));
    const search = await call('/articles?filter[search]=PAGINATION');
    expect(search.body.data.every((a: any) => a.attributes.title.startsWith('Pagination'))).toBe(true);
  });

  it('paginates articles with last and meta.total; people without last', async () => {
    const { body } = await call('/articles?page[offset]=40&page[limit]=20');
    expect(body.meta.total).toBe(120);
    expect(new URL(body.links.last).searchParams.get('page[offset]')).toBe('100');
    expect(new URL(body.links.prev).searchParams.get('page[offset]')).toBe('20');
    expect(new URL(body.links.next).searchParams.get('page[offset]')).toBe('60');
    const next = await call(new URL(body.links.next).pathname + new URL(body.links.next).search);
    expect(ids(next.body)[0]).toBe(String(120 - 60));
    const people = await call('/people?page[limit]=2');
    expect(people.body.links.last).toBeUndefined();
    expect(people.body.meta).toBeUndefined();
    expect(people.body.links.next).toBeTruthy();
    const clamped = await call('/articles?page[limit]=500');
    expect(clamped.body.data).toHaveLength(50);
  });

  it('includes and sparse fieldsets', async () => {
    const { body } = await call(
      '/articles/5?include=author,tags,comments.author&fields[articles]=title,author,tags&fields[people]=name',
    );
    expect(Object.keys(body.data.attributes)).toEqual(['title']);
    expect(Object.keys(body.data.relationships).sort()).toEqual(['author', 'tags']);
    const types = new Set(body.included.map((r: any) => r.type));
    expect(types).toEqual(new Set(['people', 'tags', 'comments']));
    for (const person of body.included.filter((r: any) => r.type === 'people'))
      expect(Object.keys(person.attributes)).toEqual(['name']);
    expect(body.included.filter((r: any) => r.type === 'comments')).toHaveLength(5);
    const related = await call('/articles/5/comments?sort=-createdAt&page[limit]=2&include=author');
    expect(related.body.data).toHaveLength(2);
    expect(related.body.included.length).toBeGreaterThan(0);
  });

  it('the Bearer stand-in: only the author deletes (403, then 204, then 404)', async () => {
    // article 6 is by person ((6 - 1) % 5) + 1 = 1 (120 articles: 5 people)
    const before = await total();
    expect((await call('/articles/6', { method: 'DELETE' })).status).toBe(403);
    const other = await call('/articles/6', { method: 'DELETE', user: '2' });
    expect(other.status).toBe(403);
    expect(other.body.errors[0].status).toBe('403');
    expect(await total()).toBe(before);
    const mine = await fetch(`${demo.url}/articles/6`, { method: 'DELETE', headers: { authorization: 'Bearer 1' } });
    expect(mine.status).toBe(204);
    expect(await mine.text()).toBe('');
    expect((await call('/articles/6')).status).toBe(404);
    expect((await call('/articles/6', { method: 'DELETE', user: '1' })).status).toBe(404);
    expect(await total()).toBe(before - 1);
    expect((await call('/articles/6/comments')).status).toBe(404);
  });

  it('the Bearer stand-in: filter[status] exists only for a signed-in user', async () => {
    const anonymous = await call('/articles?filter[status]=draft');
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.errors[0].source).toEqual({ parameter: 'filter[status]' });
    const signedIn = await call('/articles?filter[status]=draft&page[limit]=50', { user: '3' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.every((a: any) => a.attributes.status === 'draft')).toBe(true);
    expect(signedIn.body.meta.total).toBeGreaterThan(0);
  });

  it('writes: create, then update only by the author, in one transaction each', async () => {
    const send = (method: string, path: string, user: string, data: unknown) =>
      fetch(`${demo.url}${path}`, {
        method,
        headers: { 'content-type': JSONAPI, accept: JSONAPI, authorization: `Bearer ${user}` },
        body: JSON.stringify({ data }),
      });
    const created = await send('POST', '/articles', '4', {
      type: 'articles',
      attributes: { title: 'Over HTTP', body: 'Sent over HTTP.' },
      relationships: { author: { data: { type: 'people', id: '4' } }, tags: { data: [{ type: 'tags', id: '2' }] } },
    });
    expect(created.status).toBe(201);
    const doc = await created.json();
    expectValidDocument(doc);
    expect(created.headers.get('location')).toBe(`${demo.url}/articles/${doc.data.id}`);
    const patch = { type: 'articles', id: doc.data.id, attributes: { status: 'published' } };
    expect((await send('PATCH', `/articles/${doc.data.id}`, '5', patch)).status).toBe(403);
    const updated = await send('PATCH', `/articles/${doc.data.id}`, '4', patch);
    expect(updated.status).toBe(200);
    expect((await updated.json()).data.attributes.status).toBe('published');
  });

  it('SQL injection in filters, ids and sorts changes nothing', async () => {
    const before = { articles: await total(), people: (await call('/people?page[limit]=50')).body.data.length };
    const attempts = [
      `/articles?filter[title]=${encodeURIComponent("x' OR 1=1 --")}`,
      `/articles?filter[author][]=${encodeURIComponent('1); DROP TABLE articles; --')}`,
      `/articles?filter[author]=${encodeURIComponent('1 OR 1=1')}`,
      `/articles?filter[search]=${encodeURIComponent("'; DROP TABLE people; --")}`,
      `/people?filter[name]=${encodeURIComponent("' OR ''='")}`,
      `/articles/${encodeURIComponent('1; DROP TABLE articles')}`,
    ];
    for (const path of attempts) {
      const { status, body } = await call(path);
      expect([200, 400, 404], path).toContain(status);
      if (status === 200) expect(body.data, path).toEqual([]);
    }
    for (const sort of [`title'`, `title"; DROP TABLE articles; --`, `"title"`]) {
      expect((await call(`/articles?sort=${encodeURIComponent(sort)}`)).status).toBe(400);
    }
    expect({ articles: await total(), people: (await call('/people?page[limit]=50')).body.data.length }).toEqual(
      before,
    );
    for (const type of ['people', 'articles', 'comments', 'tags']) expect((await call(`/${type}`)).status).toBe(200);
    expect((await call('/tags/1/articles')).status).toBe(200);
  });

  it('serves /openapi.json when generated, 404 otherwise', async () => {
    const response = await fetch(`${demo.url}/openapi.json`);
    const generated = existsSync(new URL('../../examples/blog/generated/openapi.json', import.meta.url));
    expect(response.status).toBe(generated ? 200 : 404);
    const body = await response.json();
    if (generated) expect(body.openapi).toMatch(/^3\.1/);
    else expectValidDocument(body);
  });

  it('unknown paths are JSON:API 404s', async () => {
    const { status, body } = await call('/nope');
    expect(status).toBe(404);
    expect(body.errors[0].status).toBe('404');
  });
});
