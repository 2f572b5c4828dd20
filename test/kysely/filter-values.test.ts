/**
 * How the blog's filters read their values, on SQLite and PostgreSQL: comma lists on filters
 * that compare ids or enum values (README, "Filters: lists and literal text"), free text taken
 * verbatim, and `filter[search]` matching `%`, `_` and `\` literally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES, type Fixture, openFixture } from './harness.js';

describe.each(STORES)('filter values on %s, %s runner', (dialect, runner) => {
  let f: Fixture;
  const ids = (body: any) =>
    (body.data as Array<{ id: string }>).map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  const list = async (path: string, user?: string) => {
    const { status, body } = await f.request('GET', path, user);
    expect(status, path).toBe(200);
    return ids(body);
  };

  beforeAll(async () => {
    f = await openFixture(dialect, 20, runner);
    for (const title of ['50% off', '500 items', 'a_b test', 'axb test', 'back\\slash', 'backslash']) {
      const created = await f.request('POST', '/articles', '1', {
        data: {
          type: 'articles',
          attributes: { title },
          relationships: { author: { data: { type: 'people', id: '1' } } },
        },
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(async () => {
    await f?.close();
  });

  const titles = async (search: string) => {
    const { status, body } = await f.request(
      'GET',
      `/articles?filter[search]=${encodeURIComponent(search)}&page[limit]=50`,
    );
    expect(status).toBe(200);
    return (body.data as Array<{ attributes: { title: string } }>).map((a) => a.attributes.title).sort();
  };

  it('filter[search] matches % and _ literally, not as LIKE wildcards', async () => {
    expect(await titles('50%')).toEqual(['50% off']);
    expect(await titles('a_b')).toEqual(['a_b test']);
    expect(await titles('%')).toEqual(['50% off']);
    expect(await titles('_')).toEqual(['a_b test']);
  });

  it('filter[search] matches a backslash literally (the escape character itself)', async () => {
    expect(await titles('k\\s')).toEqual(['back\\slash']);
    expect(await titles('\\')).toEqual(['back\\slash']);
  });

  it('filter[search] stays a case-insensitive substring search', async () => {
    expect(await titles('50% OFF')).toEqual(['50% off']);
    expect(await titles('AXB')).toEqual(['axb test']);
  });

  it('filter[author]=1,2 is author 1 or 2, as the list form is', async () => {
    const either = await list('/articles?filter[author]=1,2&page[limit]=50');
    const listed = await list('/articles?filter[author][]=1&filter[author][]=2&page[limit]=50');
    const one = await list('/articles?filter[author]=1&page[limit]=50');
    const two = await list('/articles?filter[author]=2&page[limit]=50');
    expect(one.length).toBeGreaterThan(0);
    expect(two.length).toBeGreaterThan(0);
    expect(either).toEqual(listed);
    expect(either).toEqual([...one, ...two].sort((a, b) => Number(a) - Number(b)));
  });

  it('a comma list works on relationship filters of every type, and on an enum (status)', async () => {
    const comments = await list('/comments?filter[article]=1,2&page[limit]=100');
    expect(comments).toEqual(await list('/comments?filter[article][]=1&filter[article][]=2&page[limit]=100'));
    expect(comments.length).toBeGreaterThan(0);
    const both = await list('/articles?filter[status]=draft,published&page[limit]=50', '1');
    expect(both).toEqual(await list('/articles?page[limit]=50'));
  });

  it('free-text filters take a value with a comma verbatim', async () => {
    const created = await f.request('POST', '/tags', undefined, {
      data: { type: 'tags', attributes: { name: 'a,b' } },
    });
    expect(created.status).toBe(201);
    expect(await list('/tags?filter[name]=a,b')).toEqual([created.body.data.id]);
    const { body } = await f.request('GET', `/articles?filter[title]=${encodeURIComponent('50% off')}`);
    expect(body.data).toHaveLength(1);
  });
});
