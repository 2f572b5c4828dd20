/**
 * Cursor pagination (the JSON:API cursor pagination profile) on the demo's articles, on SQLite,
 * PostgreSQL and the memory store: walking `links.next` and `links.prev` visits every article
 * once in the order offset pagination gives, the ends are `null`, the profile's errors carry
 * their `type` links, a tampered cursor is a 400, and a walk while rows are inserted and deleted
 * never repeats a row nor skips one that existed throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, startDemoOn } from '../support/demo.js';
import { expectValidDocument } from '../support/validate.js';

const PROFILE = 'https://jsonapi.org/profiles/ethanresnick/cursor-pagination/';
const JSON_API = 'application/vnd.api+json';

describe.each(BACKENDS)('cursor pagination on %s', (backend) => {
  let demo: Demo;
  const get = async (url: string, accept = JSON_API) => {
    const response = await fetch(url.startsWith('http') ? url : `${demo.url}${url}`, {
      headers: { accept, authorization: 'Bearer 1' },
    });
    const body = await response.json();
    return { status: response.status, type: response.headers.get('content-type'), body };
  };
  const ids = (body: any) => (body.data as Array<{ id: string }>).map((a) => a.id);
  /** Every id, following `rel` links from `start`. */
  const walk = async (start: string, rel: 'next' | 'prev', between?: () => Promise<void>) => {
    const seen: string[] = [];
    let url: string | null = start;
    for (let pages = 0; url !== null; pages++) {
      expect(pages).toBeLessThan(50);
      const { status, body } = await get(url);
      expect(status, url).toBe(200);
      expectValidDocument(body);
      seen.push(...(rel === 'next' ? ids(body) : ids(body).reverse()));
      url = body.links[rel];
      await between?.();
    }
    return seen;
  };

  beforeAll(async () => {
    demo = await startDemoOn(backend, 40);
  }, 60_000);
  afterAll(async () => {
    await demo?.close();
  });

  it('walks every article once, forward and backward, in the order offset pagination gives, for each sort', async () => {
    for (const sort of ['-createdAt', 'title', 'createdAt,-title']) {
      const all = ids((await get(`/articles?page[limit]=50&sort=${sort}`)).body);
      expect(all.length).toBe(40);
      const forward = await walk(`/articles?page[size]=7&sort=${sort}`, 'next');
      expect(forward, sort).toEqual(all);
      // Backward from a cursor on the last article: every other article, last first.
      const backward = await walk(
        `/articles?page[size]=6&sort=${sort}&page[before]=${await cursorOfLast(sort)}`,
        'prev',
      );
      expect(backward, sort).toEqual([...all].reverse().slice(1));
    }
  });

  /** A cursor that falls on the last article: the `page[after]` of the next link of a page ending one before it. */
  async function cursorOfLast(sort: string): Promise<string> {
    const { body } = await get(`/articles?page[size]=39&sort=${sort}`);
    const next = new URL(body.links.next).searchParams.get('page[after]')!;
    // The page after the 39th article holds only the 40th; its prev link's cursor falls on it.
    const last = (await get(`/articles?page[size]=1&sort=${sort}&page[after]=${next}`)).body;
    return new URL(last.links.prev).searchParams.get('page[before]')!;
  }

  it('has null at the ends, meta.page.maxSize and total, and the profile in the media type when asked', async () => {
    const first = await get('/articles?page[size]=10', `${JSON_API}; profile="${PROFILE}"`);
    expect(first.status).toBe(200);
    expect(first.type).toBe(`${JSON_API}; profile="${PROFILE}"`);
    expect(first.body.links.prev).toBeNull();
    expect(first.body.links.next).toMatch(/page%5Bsize%5D=10&page%5Bafter%5D=/);
    expect(first.body.meta).toEqual({ page: { maxSize: 50, total: 40 } });
    const everything = await get('/articles?page[size]=50');
    expect(everything.type).toBe(JSON_API);
    expect(everything.body.links.next).toBeNull();
    expect(ids(everything.body)).toHaveLength(40);
    // Filters apply to cursor pages as to offset pages.
    const drafts = await get('/articles?page[size]=50&filter[status]=draft');
    expect(drafts.body.meta.page.total).toBe(drafts.body.data.length);
  });

  it("answers the profile's errors with their type links, and 400 for a cursor it did not make", async () => {
    const tooBig = await get('/articles?page[size]=51');
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors[0]).toMatchObject({
      source: { parameter: 'page[size]' },
      meta: { page: { maxSize: 50 } },
      links: { type: `${PROFILE}max-size-exceeded` },
    });
    const { body } = await get('/articles?page[size]=5');
    const cursor = new URL(body.links.next).searchParams.get('page[after]')!;
    const range = await get(`/articles?page[after]=${cursor}&page[before]=${cursor}`);
    expect(range.status).toBe(400);
    expect(range.body.errors[0].links).toEqual({ type: `${PROFILE}range-pagination-not-supported` });
    for (const bad of [`${cursor.slice(0, -2)}xx`, 'not-a-cursor', btoa('{"s":"x","v":[]}'), '']) {
      const answer = await get(`/articles?page[after]=${encodeURIComponent(bad)}`);
      expect(answer.status, bad).toBe(400);
      expect(answer.body.errors[0].source).toEqual({ parameter: 'page[after]' });
    }
    // A cursor of another sort is not one of this collection's.
    const other = await get(`/articles?sort=title&page[after]=${cursor}`);
    expect(other.status).toBe(400);
    expect((await get('/articles?page[size]=0')).status).toBe(400);
    expect((await get('/articles?page[size]=5&page[offset]=5')).status).toBe(400);
    // People have no cursor pagination.
    expect((await get('/people?page[size]=5')).body.errors[0].source).toEqual({ parameter: 'page[size]' });
  });

  it('never repeats a row nor skips one that existed throughout while rows are inserted and deleted during the walk', async () => {
    const before = ids((await get('/articles?page[limit]=50&sort=createdAt')).body);
    const deleted = new Set<string>();
    let step = 0;
    const churn = async () => {
      step++;
      // A new article (at the end of this order), and a delete of one not yet seen and one seen.
      const created = await fetch(`${demo.url}/articles`, {
        method: 'POST',
        headers: { 'content-type': JSON_API, accept: JSON_API, authorization: 'Bearer 1' },
        body: JSON.stringify({
          data: {
            type: 'articles',
            attributes: { title: `churn ${step}` },
            relationships: { author: { data: { type: 'people', id: '1' } } },
          },
        }),
      });
      expect(created.status).toBe(201);
      for (const id of [before[before.length - step * 2], before[step]]) {
        if (id === undefined || deleted.has(id)) continue;
        const article = await get(`/articles/${id}?include=author`);
        expect(article.status, JSON.stringify(article.body)).toBe(200);
        const author = article.body.data.relationships.author.data.id;
        const gone = await fetch(`${demo.url}/articles/${id}`, {
          method: 'DELETE',
          headers: { accept: JSON_API, authorization: `Bearer ${author}` },
        });
        expect(gone.status).toBe(204);
        deleted.add(id);
      }
    };
    const seen = await walk('/articles?page[size]=6&sort=createdAt', 'next', churn);
    expect(new Set(seen).size).toBe(seen.length);
    const throughout = before.filter((id) => !deleted.has(id));
    expect(throughout.filter((id) => !seen.includes(id))).toEqual([]);
    expect(deleted.size).toBeGreaterThan(4);
  });
});
