/**
 * Filter operators and relationship paths (`filter[field][op]`, `filter[author.name]`,
 * `filter[tags.name]`) on SQLite and PostgreSQL, each answer compared with the same filter
 * computed in plain TypeScript over every article the API serves; the errors of a bad operator
 * or value; and a path through a scoped relationship that must not match a row the caller
 * cannot see.
 */
import { Where, JsonApi, atomic } from 'jsonapi-gen';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../examples/blog/schema.js';
import {
  DRIZZLE_STORES,
  PRISMA_STORES,
  STORES,
  type Fixture,
  type ServedArticle,
  openFixture,
  servedArticles,
} from './harness.js';

describe.each(STORES)('filter operators on %s, %s runner', (dialect, runner) => {
  let f: Fixture;
  let all: ServedArticle[];
  const ids = (body: any) =>
    (body.data as Array<{ id: string }>).map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  const expected = (keep: (a: ServedArticle) => boolean) =>
    all
      .filter(keep)
      .map((a) => a.id)
      .sort((a, b) => Number(a) - Number(b));
  const list = async (query: string, user = '1') => {
    const { status, body } = await f.request('GET', `/articles?page[limit]=50&${query}`, user);
    expect(status, `${query}: ${JSON.stringify(body?.errors)}`).toBe(200);
    return ids(body);
  };
  const refused = async (query: string, parameter: string, code: string) => {
    const { status, body } = await f.request('GET', `/articles?${query}`, '1');
    expect(status, query).toBe(400);
    expect(body.errors[0]).toMatchObject({ source: { parameter }, code });
  };

  beforeAll(async () => {
    f = await openFixture(dialect, 30, runner);
    // Titles that hold LIKE and GLOB wildcards, and letter case, for the text operators.
    for (const title of ['100% Sure_thing', 'Mixed CASE [draft]*', 'ends with 50%']) {
      const created = await f.request('POST', '/articles', '1', {
        data: {
          type: 'articles',
          attributes: { title },
          relationships: { author: { data: { type: 'people', id: '1' } } },
        },
      });
      expect(created.status).toBe(201);
    }
    all = await servedArticles(f);
    expect(all.length).toBe(33);
  });
  afterAll(async () => {
    await f?.close();
  });

  it('orders date-times as instants: eq, ne, lt, lte, gt, gte, with offsets read as UTC', async () => {
    const pivot = [...all].sort((a, b) => a.createdAt.localeCompare(b.createdAt))[10]!.createdAt;
    // The same instant written with an offset.
    const shifted = new Date(Date.parse(pivot) + 2 * 3600_000)
      .toISOString()
      .replace('Z', '+02:00')
      .replace('.000+', '+');
    const at = encodeURIComponent(shifted);
    expect(await list(`filter[createdAt][gte]=${at}`)).toEqual(expected((a) => a.createdAt >= pivot));
    expect(await list(`filter[createdAt][gt]=${at}`)).toEqual(expected((a) => a.createdAt > pivot));
    expect(await list(`filter[createdAt][lt]=${at}`)).toEqual(expected((a) => a.createdAt < pivot));
    expect(await list(`filter[createdAt][lte]=${at}`)).toEqual(expected((a) => a.createdAt <= pivot));
    expect(await list(`filter[createdAt][eq]=${at}`)).toEqual(expected((a) => a.createdAt === pivot));
    expect(await list(`filter[createdAt][ne]=${at}`)).toEqual(expected((a) => a.createdAt !== pivot));
    // A range: both bounds hold.
    const upper = [...all].sort((a, b) => a.createdAt.localeCompare(b.createdAt))[20]!.createdAt;
    expect(
      await list(
        `filter[createdAt][gte]=${encodeURIComponent(pivot)}&filter[createdAt][lt]=${encodeURIComponent(upper)}`,
      ),
    ).toEqual(expected((a) => a.createdAt >= pivot && a.createdAt < upper));
  });

  it('matches text literally and with letter case: contains, startsWith, endsWith, eq', async () => {
    for (const [op, term, keep] of [
      ['contains', '% Sure_', (t: string) => t.includes('% Sure_')],
      ['contains', 'practice', (t: string) => t.includes('practice')],
      ['contains', 'case', (t: string) => t.includes('case')],
      ['contains', '[draft]*', (t: string) => t.includes('[draft]*')],
      ['startsWith', '100%', (t: string) => t.startsWith('100%')],
      ['startsWith', 'mixed', (t: string) => t.startsWith('mixed')],
      ['endsWith', '50%', (t: string) => t.endsWith('50%')],
      ['eq', 'Mixed CASE [draft]*', (t: string) => t === 'Mixed CASE [draft]*'],
    ] as const) {
      expect(await list(`filter[title][${op}]=${encodeURIComponent(term)}`), `${op} ${term}`).toEqual(
        expected((a) => keep(a.title)),
      );
    }
    expect(expected((a) => a.title.includes('practice')).length).toBeGreaterThan(5);
  });

  it('compares an enum by equality and lists: eq, ne, in, nin (and a comma list)', async () => {
    expect(await list('filter[status][ne]=draft')).toEqual(expected((a) => a.status !== 'draft'));
    expect(await list('filter[status][in]=draft,published')).toEqual(expected(() => true));
    expect(await list('filter[status][nin]=published')).toEqual(expected((a) => a.status !== 'published'));
    expect(await list('filter[status]=draft')).toEqual(expected((a) => a.status === 'draft'));
  });

  it('follows relationship paths: author.name (to-one) and tags.name (to-many, any tag matching)', async () => {
    const author = all[4]!.author;
    expect(await list(`filter[author.name]=${encodeURIComponent(author)}`)).toEqual(
      expected((a) => a.author === author),
    );
    expect(await list(`filter[author.name][contains]=${encodeURIComponent(author.slice(1, 5))}`)).toEqual(
      expected((a) => a.author.includes(author.slice(1, 5))),
    );
    const tags = [...new Set(all.flatMap((a) => a.tags))].sort();
    expect(tags.length).toBeGreaterThan(3);
    expect(await list(`filter[tags.name]=${encodeURIComponent(tags[0]!)}`)).toEqual(
      expected((a) => a.tags.includes(tags[0]!)),
    );
    expect(await list(`filter[tags.name][in]=${encodeURIComponent(`${tags[1]},${tags[2]}`)}`)).toEqual(
      expected((a) => a.tags.includes(tags[1]!) || a.tags.includes(tags[2]!)),
    );
    // Combined with an operator on the resource's own field: both hold.
    expect(await list(`filter[tags.name]=${encodeURIComponent(tags[0]!)}&filter[status]=published`)).toEqual(
      expected((a) => a.tags.includes(tags[0]!) && a.status === 'published'),
    );
  });

  it("sorts by a to-one relationship's attribute: sort=author.name,-createdAt", async () => {
    const { status, body } = await f.request('GET', '/articles?page[limit]=50&sort=author.name,-createdAt', '1');
    expect(status).toBe(200);
    const order = [...all].sort((a, b) =>
      a.author !== b.author
        ? a.author < b.author
          ? -1
          : 1
        : a.createdAt !== b.createdAt
          ? a.createdAt < b.createdAt
            ? 1
            : -1
          : Number(a.id) - Number(b.id),
    );
    expect((body.data as Array<{ id: string }>).map((a) => a.id)).toEqual(order.map((a) => a.id));
    const descending = await f.request('GET', '/articles?page[limit]=50&sort=-author.name,-createdAt', '1');
    expect((descending.body.data as Array<{ id: string }>)[0]!.id).toBe(
      [...order].sort((a, b) => (a.author !== b.author ? (a.author < b.author ? 1 : -1) : 0))[0]!.id,
    );
  });

  it('answers 400 naming the exact parameter for a bad operator or value', async () => {
    await refused('filter[title][gt]=a', 'filter[title][gt]', 'unsupported_operator');
    await refused('filter[title][like]=a', 'filter[title][like]', 'unknown_operator');
    await refused('filter[createdAt][gte]=yesterday', 'filter[createdAt][gte]', 'invalid_filter_value');
    await refused('filter[status][in]=draft,archived', 'filter[status][in]', 'invalid_filter_value');
    await refused('filter[search][eq]=a', 'filter[search][eq]', 'unsupported_operator');
    await refused('filter[author.email]=a', 'filter[author.email]', 'unknown_filter');
    // A hidden filter (status without a user) is unknown whatever operator is used.
    const { status, body } = await f.request('GET', '/articles?filter[status][ne]=draft');
    expect(status).toBe(400);
    expect(body.errors[0]).toMatchObject({ source: { parameter: 'filter[status][ne]' }, code: 'unknown_filter' });
  });
});

describe.each([...STORES, ...PRISMA_STORES, ...DRIZZLE_STORES])(
  'a path through a scoped relationship on %s, %s',
  (dialect, runner) => {
    let f: Fixture;
    let api: JsonApi;
    const people = async (query: string, user?: string) => {
      const response = await api.fetch(new Request(`http://localhost/people?page[limit]=50&${query}`), {
        attributes: user === undefined ? {} : { user },
      });
      const body = (await response.json()) as { data: Array<{ id: string }> };
      expect(response.status).toBe(200);
      return body.data.map((p) => p.id);
    };

    beforeAll(async () => {
      f = await openFixture(dialect, 10, runner);
      // Person 2's draft: its title is matched only for person 2 (the scoped store hides drafts from everyone else).
      const created = await f.request('POST', '/articles', '2', {
        data: {
          type: 'articles',
          attributes: { title: 'Secret plans', status: 'draft' },
          relationships: { author: { data: { type: 'people', id: '2' } } },
        },
      });
      expect(created.status).toBe(201);
      const store = f.store({ scoped: true });
      const peopleWithPath = {
        ...schema.people,
        filters: () => [...(schema.people.filters?.() ?? []), Where.make('articles.title')],
      };
      api = new JsonApi({ transaction: f.transaction, extensions: [atomic()] })
        .resource({ ...peopleWithPath, ...store.people })
        .resource({ ...schema.articles, ...store.articles })
        .resource({ ...schema.comments, ...store.comments })
        .resource({ ...schema.tags, ...store.tags });
    });
    afterAll(async () => {
      await f?.close();
    });

    it('matches a related row only where the caller may see it', async () => {
      expect(await people('filter[articles.title]=Secret%20plans')).toEqual([]);
      expect(await people('filter[articles.title]=Secret%20plans', '3')).toEqual([]);
      expect(await people('filter[articles.title]=Secret%20plans', '2')).toEqual(['2']);
      expect(await people('filter[articles.title][contains]=plans', '2')).toEqual(['2']);
    });
  },
);
