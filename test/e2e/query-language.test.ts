/**
 * The examples of DEMO.md's "Query language, second part" on every backend of the demo (SQLite,
 * PostgreSQL, the memory store): boolean groups, count filters and sorts, `withCount`, and the
 * 400s for what a filter may not hold. Article n keeps n % 6 of its comments
 * (`varyCommentCounts`), so that counts differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { seedRows } from '../../examples/blog/seed.js';
import { type BlogArticle, blogArticles, get, idsOf, varyCommentCounts } from '../support/blog-articles.js';
import { BACKENDS, startDemoOn } from '../support/demo.js';

const SEED = 30;
const byId = (x: number, y: number) => x - y;

describe.each(BACKENDS)('the query language, second part, on %s', (backend) => {
  let demo: Demo;
  let all: BlogArticle[];
  /** The ids of `/articles?<query>` (one page holds them all), sorted. */
  const select = async (query: string) => {
    const { status, body } = await get(`${demo.url}/articles?page[limit]=50&${query}`);
    expect(status, JSON.stringify(body.errors)).toBe(200);
    return idsOf(body.data).sort(byId);
  };
  const expected = (keep: (a: BlogArticle) => boolean) =>
    all
      .filter(keep)
      .map((a) => a.id)
      .sort(byId);

  beforeAll(async () => {
    demo = await startDemoOn(backend, SEED);
    await varyCommentCounts(demo.url, SEED);
    all = await blogArticles(demo.url);
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('filter[or]: drafts, or articles by an author', async () => {
    const name = all.find((a) => a.status === 'published')!.authorName;
    const ids = await select(`filter[or][0][status]=draft&filter[or][1][author.name]=${encodeURIComponent(name)}`);
    const want = expected((a) => a.status === 'draft' || a.authorName === name);
    expect(want.length).toBeGreaterThan(expected((a) => a.status === 'draft').length);
    expect(ids).toEqual(want);
  });

  it('filter[not] over tags.name: the articles with no such tag, untagged ones too', async () => {
    const ids = await select('filter[not][tags.name]=typescript');
    const want = expected((a) => !a.tagNames.includes('typescript'));
    expect(want.length).toBeLessThan(all.length);
    expect(want).toEqual(expect.arrayContaining(expected((a) => a.tagCount === 0)));
    expect(ids).toEqual(want);
  });

  it('filter[and] with an or and a not nested in it', async () => {
    const since = all[10]!.createdAt;
    const ids = await select(
      `filter[and][0][createdAt][gte]=${since}&filter[and][1][or][0][title][contains]=a&filter[and][1][or][1][not][status]=draft`,
    );
    const want = expected((a) => a.createdAt >= since && (a.title.includes('a') || a.status !== 'draft'));
    expect(want.length).toBeGreaterThan(0);
    expect(ids).toEqual(want);
  });

  it('filter[search] inside filter[or] and filter[not]', async () => {
    const search = (a: BlogArticle) => a.title.toLowerCase().includes('joins');
    expect(await select('filter[or][0][search]=JOINS&filter[or][1][status]=draft')).toEqual(
      expected((a) => search(a) || a.status === 'draft'),
    );
    expect(await select('filter[not][search]=joins')).toEqual(expected((a) => !search(a)));
  });

  it('filter[commentCount][gte]=2 and filter[commentCount]=0 count each article’s comments', async () => {
    const articles = Array.from({ length: SEED }, (_, i) => i + 1);
    expect(await select('filter[commentCount][gte]=2')).toEqual(articles.filter((n) => n % 6 >= 2));
    expect(await select('filter[commentCount]=0')).toEqual(articles.filter((n) => n % 6 === 0));
  });

  it('sort=-commentCount,title orders by the count, then by title', async () => {
    const { status, body } = await get(`${demo.url}/articles?page[limit]=50&sort=-commentCount,title`);
    expect(status).toBe(200);
    const want = [...all]
      .sort((a, b) => (b.id % 6) - (a.id % 6) || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0))
      .map((a) => a.id);
    expect(idsOf(body.data)).toEqual(want);
  });

  it('withCount=comments,tags puts relationships.<name>.meta.count on primary and included articles', async () => {
    const tagCount = (n: number) => seedRows(SEED).article_tags.filter((l) => l.article_id === n).length;
    const primary = await get(`${demo.url}/articles?page[limit]=50&withCount=comments,tags`);
    expect(primary.status).toBe(200);
    expect(primary.body.data).toHaveLength(SEED);
    for (const article of primary.body.data) {
      const n = Number(article.id);
      expect(article.relationships!.comments!.meta, `article ${n}`).toEqual({ count: n % 6 });
      expect(article.relationships!.tags!.meta, `article ${n}`).toEqual({ count: tagCount(n) });
    }
    const included = await get(`${demo.url}/comments?page[limit]=100&include=article&withCount=comments,tags`);
    expect(included.status).toBe(200);
    expect(included.body.included!.length).toBeGreaterThan(10);
    for (const article of included.body.included!) {
      const n = Number(article.id);
      expect(article.relationships!.comments!.meta, `included article ${n}`).toEqual({ count: n % 6 });
      expect(article.relationships!.tags!.meta, `included article ${n}`).toEqual({ count: tagCount(n) });
    }
    // Without withCount, nothing is counted.
    const plain = await get(`${demo.url}/articles?page[limit]=50`);
    expect(plain.body.data.every((a) => a.relationships!.comments!.meta === undefined)).toBe(true);
  });

  it('withCount=articles counts each person’s articles', async () => {
    const { status, body } = await get(`${demo.url}/people?withCount=articles`);
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(1);
    for (const person of body.data) {
      const written = all.filter((a) => a.authorId === person.id).length;
      expect(person.relationships!.articles!.meta, `person ${person.id}`).toEqual({ count: written });
    }
  });

  it.each(['nothing', 'author', 'comments,body'])('withCount=%s is 400 at withCount', async (names) => {
    const { status, body } = await get(`${demo.url}/articles?withCount=${names}`);
    expect(status).toBe(400);
    expect(body.errors![0]!.source).toEqual({ parameter: 'withCount' });
  });

  it('more than 32 clauses is 400 naming the parameter', async () => {
    const clauses = Array.from({ length: 33 }, (_, i) => `filter[or][${i}][title][contains]=${i}`);
    const { status, body } = await get(`${demo.url}/articles?${clauses.join('&')}`);
    expect(status).toBe(400);
    expect(body.errors![0]!.source).toEqual({ parameter: 'filter[or][32][title][contains]' });
    // 32 are served.
    expect((await get(`${demo.url}/articles?${clauses.slice(0, 32).join('&')}`)).status).toBe(200);
  });

  it('groups nested deeper than 6 are 400 naming the parameter', async () => {
    const key = `filter${'[not]'.repeat(7)}[status]`;
    const { status, body } = await get(`${demo.url}/articles?${key}=draft`);
    expect(status).toBe(400);
    expect(body.errors![0]!.source).toEqual({ parameter: key });
    // 6 deep is served: an even number of nots is the filter itself.
    expect(await select(`filter${'[not]'.repeat(6)}[status]=draft`)).toEqual(expected((a) => a.status === 'draft'));
  });

  it('status inside a group without a user is 400 naming the nested parameter', async () => {
    const response = await fetch(`${demo.url}/articles?filter[or][0][status]=draft&filter[or][1][title]=x`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: Array<{ source: unknown }> };
    expect(body.errors[0]!.source).toEqual({ parameter: 'filter[or][0][status]' });
  });
});
