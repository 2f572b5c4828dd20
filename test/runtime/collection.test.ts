import { describe, expect, test } from 'vitest';
import {
  Attribute,
  CustomFilter,
  CustomSort,
  Index,
  JsonApi,
  bindResource,
  defineResource,
  type FilterValue,
} from 'jsonapi-gen';
import { createBlog } from '../support/memory-host.js';
import { request } from '../support/request.js';
import { json, jsonError, type Doc } from '../support/validate.js';

type Attributes = Record<string, unknown>;

async function get(path: string, attributes?: Attributes, blog = createBlog()): Promise<Doc> {
  const response = await blog.api.fetch(request(path), { attributes });
  const document = await json(response);
  expect(response.status, JSON.stringify(document.errors)).toBe(200);
  return document;
}

const ids = (document: Doc): string[] => document.data.map((r: Doc) => r.id);

/** A link's query parameters, decoded. */
function params(link: string): Record<string, string> {
  return Object.fromEntries(new URL(link).searchParams);
}

describe('sorting', () => {
  test.each([
    ['title', ['3', '2', '4', '1']],
    ['-title', ['1', '4', '2', '3']],
    ['createdAt,title', ['1', '3', '2', '4']],
    ['createdAt,-title', ['1', '2', '3', '4']],
    ['-createdAt,-title', ['4', '2', '3', '1']],
  ])('sort=%s orders by every key in turn', async (sort, expected) => {
    expect(ids(await get(`/articles?sort=${sort}`))).toEqual(expected);
  });

  test('without sort the default sort (-createdAt,title) applies', async () => {
    expect(ids(await get('/articles'))).toEqual(['4', '3', '2', '1']);
  });

  test('a sort the client gives replaces the default sort entirely', async () => {
    // Under the default sort the tie on createdAt (articles 2 and 3) would be broken by title.
    expect(ids(await get('/articles?sort=-createdAt'))).toEqual(['4', '2', '3', '1']);
  });

  test.each([
    ['an undeclared sort', 'sort=body'],
    ['an attribute that is not a sort', 'sort=-wordCount'],
    ['a hidden sort', 'sort=views'],
    ['a hidden sort after a visible one', 'sort=title,-views'],
    ['an empty sort field', 'sort=title,'],
  ])('%s is a 400 pointing at sort', async (_, query) => {
    const document = await jsonError(await createBlog().api.fetch(request(`/articles?${query}`)), 400);
    expect(document.errors[0].source).toEqual({ parameter: 'sort' });
  });

  test('a hidden sort is usable by those its callback lets see it', async () => {
    expect(ids(await get('/articles?sort=-views', { role: 'editor' }))).toEqual(['2', '1', '3', '4']);
  });
});

describe('filtering', () => {
  test.each([
    ['a string value', 'filter[status]=draft', ['4']],
    ['an array value', 'filter[status][]=draft&filter[status][]=published', ['4', '3', '2', '1']],
    ['an array of one', 'filter[author][]=2', ['2']],
    ['an array of two', 'filter[author][]=3&filter[author][]=1', ['4', '3', '1']],
    ['two filters together', 'filter[author]=1&filter[title]=JSON', ['1']],
    ['a filter and a sort', 'filter[status]=published&sort=title', ['3', '2', '1']],
    ['a filter matching nothing', 'filter[title]=nothing-like-this', []],
  ])('%s: ?%s', async (_, query, expected) => {
    expect(ids(await get(`/articles?${query}`))).toEqual(expected);
  });

  test('filters receive a string for filter[x]=a and an array for filter[x][]=a&filter[x][]=b', async () => {
    const seen: FilterValue[] = [];
    const api = new JsonApi().resource({
      ...defineResource({
        type: 'tags',
        endpoints: [Index.make()],
        filters: [CustomFilter.make('name', (query: unknown, value) => (seen.push(value), query))],
      }),
      query: () => null,
      results: () => [],
    });
    await json(await api.fetch(request('/tags?filter[name]=a')));
    await json(await api.fetch(request('/tags?filter[name][]=a&filter[name][]=b%2Cc')));
    await json(await api.fetch(request('/tags?filter[name][]=only')));
    expect(seen).toEqual(['a', ['a', 'b,c'], ['only']]);
  });

  test.each([
    ['an undeclared filter', 'filter[body]=x', 'filter[body]'],
    ['a hidden filter', 'filter[minViews]=100', 'filter[minViews]'],
    ['a hidden filter as a list', 'filter[minViews][]=100', 'filter[minViews]'],
  ])('%s is a 400 pointing at the parameter', async (_, query, parameter) => {
    const document = await jsonError(await createBlog().api.fetch(request(`/articles?${query}`)), 400);
    expect(document.errors[0].source).toEqual({ parameter });
  });

  test('a hidden filter is usable by those its callback lets see it', async () => {
    expect(ids(await get('/articles?filter[minViews]=100', { role: 'editor' }))).toEqual(['2', '1']);
  });

  test('filter[x]=a mixed with filter[x][]=b is a 400', async () => {
    await jsonError(
      await createBlog().api.fetch(request('/articles?filter[status]=draft&filter[status][]=published')),
      400,
    );
  });
});

describe('pagination', () => {
  const big = () => createBlog({ extraArticles: 60 }); // 64 articles

  test('the default page size applies and links lead on', async () => {
    const document = await get('/articles', undefined, big());
    expect(document.data).toHaveLength(20);
    expect(document.meta).toEqual({ total: 64 });
    expect(document.links.prev).toBeNull();
    expect(params(document.links.first)).toEqual({ 'page[limit]': '20' });
    expect(params(document.links.next)).toEqual({ 'page[offset]': '20', 'page[limit]': '20' });
    expect(params(document.links.last)).toEqual({ 'page[offset]': '60', 'page[limit]': '20' });
  });

  test('a limit above the maximum is clamped to it', async () => {
    const document = await get('/articles?page[limit]=500', undefined, big());
    expect(document.data).toHaveLength(50);
    expect(params(document.links.next)).toEqual({ 'page[offset]': '50', 'page[limit]': '50' });
  });

  test('a limit up to the maximum is honoured', async () => {
    expect((await get('/articles?page[limit]=50', undefined, big())).data).toHaveLength(50);
    expect((await get('/articles?page[limit]=3', undefined, big())).data).toHaveLength(3);
  });

  test('a middle page links to its neighbours', async () => {
    const document = await get('/articles?page[offset]=10&page[limit]=10', undefined, big());
    expect(document.data).toHaveLength(10);
    expect(params(document.links.prev)).toEqual({ 'page[limit]': '10' });
    expect(params(document.links.next)).toEqual({ 'page[offset]': '20', 'page[limit]': '10' });
    expect(params(document.links.last)).toEqual({ 'page[offset]': '60', 'page[limit]': '10' });
  });

  test('the last page has no next link', async () => {
    const document = await get('/articles?page[offset]=60&page[limit]=10', undefined, big());
    expect(ids(document)).toHaveLength(4);
    expect(document.links.next).toBeNull();
    expect(params(document.links.prev)).toEqual({ 'page[offset]': '50', 'page[limit]': '10' });
  });

  test('pages follow the sort: consecutive pages neither skip nor repeat', async () => {
    const blog = big();
    const first = await get('/articles?sort=title&page[limit]=30', undefined, blog);
    const second = await get(new URL(first.links.next).pathname + new URL(first.links.next).search, undefined, blog);
    const all = await get('/articles?sort=title&page[limit]=50', undefined, blog);
    expect([...ids(first), ...ids(second)].slice(0, 50)).toEqual(ids(all));
  });

  test('every link keeps the other query parameters', async () => {
    const document = await get(
      '/articles?filter[status]=published&sort=title&fields[articles]=title&page[limit]=1&page[offset]=1',
    );
    const others = { 'filter[status]': 'published', sort: 'title', 'fields[articles]': 'title' };
    expect(params(document.links.first)).toEqual({ ...others, 'page[limit]': '1' });
    expect(params(document.links.prev)).toEqual({ ...others, 'page[limit]': '1' });
    expect(params(document.links.next)).toEqual({ ...others, 'page[offset]': '2', 'page[limit]': '1' });
    expect(params(document.links.last)).toEqual({ ...others, 'page[offset]': '2', 'page[limit]': '1' });
    expect(params(document.links.self)).toEqual({ ...others, 'page[limit]': '1', 'page[offset]': '1' });
    expect(document.meta).toEqual({ total: 3 });
  });

  test('without count there is no last link and no meta.total; next appears while pages are full', async () => {
    const blog = createBlog();
    const full = await get('/comments?page[limit]=2', undefined, blog);
    expect(full.data).toHaveLength(2);
    expect(full.meta).toBeUndefined();
    expect(full.links).not.toHaveProperty('last');
    expect(params(full.links.next)).toEqual({ 'page[offset]': '2', 'page[limit]': '2' });
    const partial = await get('/comments?page[offset]=2&page[limit]=3', undefined, blog);
    expect(partial.data).toHaveLength(2);
    expect(partial.links.next).toBeNull();
    expect(blog.calls.of('count')).toBe(0);
  });

  test('a resource with its own default and maximum (5, 10)', async () => {
    const blog = createBlog();
    blog.db.comments.push(
      ...Array.from({ length: 20 }, (_, i) => ({
        id: String(10 + i),
        body: 'me too',
        createdAt: new Date(0),
        articleId: '2',
        authorId: '3',
      })),
    );
    expect((await get('/comments', undefined, blog)).data).toHaveLength(5);
    expect((await get('/comments?page[limit]=11', undefined, blog)).data).toHaveLength(10);
  });

  test.each([
    ['page[limit]=0', 'page[limit]'],
    ['page[limit]=-5', 'page[limit]'],
    ['page[limit]=2.5', 'page[limit]'],
    ['page[limit]=ten', 'page[limit]'],
    ['page[limit]=', 'page[limit]'],
    ['page[offset]=-1', 'page[offset]'],
    ['page[offset]=1e3', 'page[offset]'],
    ['page[number]=2', 'page[number]'],
  ])('%s is a 400 pointing at %s', async (query, parameter) => {
    const document = await jsonError(await createBlog().api.fetch(request(`/articles?${query}`)), 400);
    expect(document.errors[0].source).toEqual({ parameter });
  });

  test('an unpaginated collection refuses page parameters and returns everything', async () => {
    const blog = createBlog();
    const document = await jsonError(await blog.api.fetch(request('/tags?page[limit]=1')), 400);
    expect(document.errors[0].source).toEqual({ parameter: 'page[limit]' });
    const all = await get('/tags', undefined, blog);
    expect(all.data.map((t: Doc) => t.attributes.name)).toEqual(['http', 'json', 'typescript']);
    expect(Object.keys(all.links)).toEqual(['self']);
  });
});

describe('the index pipeline', () => {
  test('runs query, filters, sorts, count, paginate, results in that order, passing the query along', async () => {
    const log: string[] = [];
    const step = (name: string) => (query: string[]) => (log.push(name), [...query, name]);
    const api = new JsonApi().resource({
      ...defineResource({
        type: 'tags',
        endpoints: [Index.make().paginate().countable()],
        filters: [CustomFilter.make('name', (query: string[]) => step('filter')(query))],
        sorts: [CustomSort.make('name', (query: string[]) => step('sort')(query))],
      }),
      query: () => (log.push('query'), ['query']),
      count: (query: string[]) => (log.push(`count(${query.join()})`), 0),
      paginate: (query: string[], page) => step(`paginate(${page.offset},${page.limit})`)(query),
      results: (query: string[]) => (log.push(`results(${query.join()})`), []),
    });
    await json(await api.fetch(request('/tags?filter[name]=x&sort=-name&page[offset]=4&page[limit]=2')));
    expect(log).toEqual([
      'query',
      'filter',
      'sort',
      'count(query,filter,sort)',
      'paginate(4,2)',
      'results(query,filter,sort,paginate(4,2))',
    ]);
  });
  test('asks for the page before awaiting the count, so a pooled data layer runs both at once', async () => {
    const log: string[] = [];
    let finishCount: (total: number) => void = () => undefined;
    const api = new JsonApi().resource({
      ...defineResource({ type: 'tags', endpoints: [Index.make().paginate().countable()] }),
      query: () => [] as string[],
      // The count answers only once the page was asked for: awaited first, it would never answer.
      count: () => (log.push('count'), new Promise<number>((resolve) => (finishCount = resolve))),
      paginate: (query: string[]) => query,
      results: async () => {
        log.push('results');
        finishCount(7);
        return [];
      },
    });
    const document = await json(await api.fetch(request('/tags?page[limit]=2')));
    expect(log).toEqual(['count', 'results']);
    expect(document.meta).toEqual({ total: 7 });
  });

  test('a count that fails after a later step failed first leaves no unhandled rejection, and the error is a 500', async () => {
    const api = new JsonApi().resource({
      ...defineResource({ type: 'tags', endpoints: [Index.make().paginate().countable()] }),
      query: () => [] as string[],
      count: () => Promise.reject(new Error('count failed')),
      paginate: (query: string[]) => query,
      results: async () => {
        throw new Error('results failed');
      },
    });
    const response = await api.fetch(request('/tags'));
    expect(response.status).toBe(500);
  });
});

describe('counting: implementing Countable is enough, countable(false) opts out', () => {
  const rows = ['a', 'b', 'c', 'd', 'e'].map((name, i) => ({ id: String(i + 1), name }));
  /** A data layer over `rows` that implements Countable and records each count. */
  const counting = (counted: string[]) => ({
    find: (id: string) => rows.find((row) => row.id === id),
    query: () => rows,
    paginate: (query: typeof rows, page: { offset: number; limit: number }) =>
      query.slice(page.offset, page.offset + page.limit),
    results: (query: typeof rows) => query,
    count: (query: typeof rows) => (counted.push('count'), query.length),
  });
  const tags = (index: Index) => defineResource({ type: 'tags', fields: [Attribute.make('name')], endpoints: [index] });
  const page = async (api: JsonApi) => json(await api.fetch(request('/tags?page[limit]=2')));

  test('undeclared, a data layer with count gives the last link and the total', async () => {
    const counted: string[] = [];
    const document = await page(new JsonApi().resource({ ...tags(Index.make().paginate()), ...counting(counted) }));
    expect(document.meta).toEqual({ total: 5 });
    expect(params(document.links.last)).toMatchObject({ 'page[offset]': '4', 'page[limit]': '2' });
    expect(counted).toEqual(['count']);
  });

  test('countable(false) never counts, even with a data layer that can', async () => {
    const counted: string[] = [];
    const document = await page(
      new JsonApi().resource({ ...tags(Index.make().paginate().countable(false)), ...counting(counted) }),
    );
    expect(document.meta).toBeUndefined();
    expect(document.links.last).toBeUndefined();
    expect(document.links.next).toBeDefined();
    expect(counted).toEqual([]);
  });

  test('a data layer that counts only where declared (countOnlyWhereDeclared) is not counted undeclared', async () => {
    const counted: string[] = [];
    const layer = { ...counting(counted), countOnlyWhereDeclared: true };
    expect((await page(new JsonApi().resource({ ...tags(Index.make().paginate()), ...layer }))).meta).toBeUndefined();
    expect(
      (await page(new JsonApi().resource({ ...tags(Index.make().paginate().countable()), ...layer }))).meta,
    ).toEqual({ total: 5 });
    expect(counted).toEqual(['count']);
  });

  test('bindResource (what generated code calls): the schema decides, count is bound only where declared countable()', async () => {
    const counted: string[] = [];
    const undeclared = await page(
      new JsonApi().resource(bindResource(tags(Index.make().paginate()), counting(counted))),
    );
    expect(undeclared.meta).toBeUndefined();
    expect(counted).toEqual([]);
    const declared = await page(
      new JsonApi().resource(bindResource(tags(Index.make().paginate().countable()), counting(counted))),
    );
    expect(declared.meta).toEqual({ total: 5 });
    expect(counted).toEqual(['count']);
  });

  test('an unpaginated list is not counted: the document holds the whole collection', async () => {
    const counted: string[] = [];
    const document = await json(
      await new JsonApi().resource({ ...tags(Index.make()), ...counting(counted) }).fetch(request('/tags')),
    );
    expect(document.data).toHaveLength(5);
    expect(document.meta).toBeUndefined();
    expect(counted).toEqual([]);
  });
});

describe('index visibility', () => {
  test('an invisible index is a 403; ctx.getAttribute sees the attributes the host passed', async () => {
    const blog = createBlog();
    await jsonError(await blog.api.fetch(request('/people')), 403);
    const document = await get('/people', { user: '2' }, blog);
    expect(ids(document)).toEqual(['1', '2', '3']);
  });
});
