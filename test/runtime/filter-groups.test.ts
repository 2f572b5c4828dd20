/**
 * The runtime's side of boolean groups, count filters and sorts, and `withCount`, on a data
 * layer written here by hand over arrays: what its `where` receives, what is refused (400
 * naming the exact parameter), and what the document carries. The stores' side of the same
 * language is tested on the demo (test/e2e/query-language*.test.ts) and in test/kysely.
 */
import { describe, expect, test } from 'vitest';
import {
  Attribute,
  CustomFilter,
  Index,
  JsonApi,
  Show,
  SortBy,
  SortWithCount,
  ToMany,
  ToOne,
  Where,
  WhereCount,
  defineResource,
  type Context,
  type CursorPage,
  type FilterCondition,
  type FilterValue,
  type Relationship,
  type SortDirection,
} from 'jsonapi-gen';
import { request } from '../support/request.js';
import { json, jsonError, type Doc } from '../support/validate.js';

type Row = Record<string, unknown> & { id: string };
const people: Row[] = [
  { id: '1', name: 'Ada' },
  { id: '2', name: 'Grace' },
];
const articles: Row[] = [
  { id: '1', title: 'alpha', status: 'draft', authorId: '1', tagIds: ['1'] },
  { id: '2', title: 'beta', status: 'published', authorId: '2', tagIds: [] },
  { id: '3', title: 'gamma', status: 'published', authorId: '1', tagIds: ['1', '2'] },
];
const tags: Row[] = [
  { id: '1', name: 'ts' },
  { id: '2', name: 'sql' },
];

interface Calls {
  where: FilterCondition[];
  countRelated: string[];
}

/** A condition over one row, as the data layer's contract says: null leaves are false, `not` negates. */
function holds(type: string, row: Row, condition: FilterCondition): boolean {
  switch (condition.op) {
    case 'and':
      return condition.conditions.every((c) => holds(type, row, c));
    case 'or':
      return condition.conditions.some((c) => holds(type, row, c));
    case 'not':
      return !condition.conditions.every((c) => holds(type, row, c));
    case 'custom':
      return String(row.title).includes(String(condition.value));
  }
  const values = condition.count
    ? [related(type, condition.count.relationship, row).length]
    : condition.path
      ? related(type, condition.path.relationship, row).map((r) => r[condition.path!.attribute])
      : [condition.field === 'author' ? row.authorId : row[condition.field]];
  const value = condition.value;
  return values.some((v) => {
    if (v === null || v === undefined) return false;
    if (condition.op === 'eq') return v === value;
    if (condition.op === 'ne') return v !== value;
    if (condition.op === 'in') return (value as readonly unknown[]).includes(v);
    if (condition.op === 'gte') return (v as number) >= (value as number);
    if (condition.op === 'lt') return (v as number) < (value as number);
    if (condition.op === 'contains') return typeof v === 'string' && v.includes(String(value));
    throw new Error(`operator ${condition.op} is not needed here`);
  });
}

function related(type: string, relationship: string, row: Row): Row[] {
  if (type === 'people') return articles.filter((a) => a.authorId === row.id);
  if (relationship === 'author') return people.filter((p) => p.id === row.authorId);
  return tags.filter((t) => (row.tagIds as string[]).includes(t.id));
}

/** The comparisons a sorted query was sorted by, first the primary one. */
const ordered = new WeakMap<Row[], Array<(a: Row, b: Row) => number>>();

/** The data layer of one type over `rows`, recording what it is handed. */
function layer(type: string, rows: Row[], calls: Calls, composable: string[] = []) {
  return {
    find: (id: string) => rows.find((r) => r.id === id) ?? null,
    query: () => rows,
    results: (q: Row[]) => q,
    paginate: (q: Row[], { offset, limit }: { offset: number; limit: number }) => q.slice(offset, offset + limit),
    paginateCursor: (q: Row[], page: CursorPage) => {
      const key = (row: Row) =>
        page.sorts.map((s) => (s.count ? related(type, s.count.relationship, row).length : row[s.field]));
      const compare = (a: Row, b: Row) => {
        const [x, y] = [key(a), key(b)];
        for (let i = 0; i < x.length; i++) {
          const sign = page.sorts[i]!.direction === 'asc' ? 1 : -1;
          if (x[i] !== y[i]) return (x[i]! < y[i]! ? -1 : 1) * sign;
        }
        return 0;
      };
      const sorted = q.toSorted(compare);
      const after = page.after;
      const start = after ? sorted.filter((row) => compareTo(key(row), after, page) > 0) : sorted;
      return start.slice(0, page.limit);
    },
    where: (q: Row[], condition: FilterCondition) => {
      calls.where.push(condition);
      return q.filter((row) => holds(type, row, condition));
    },
    composableFilters: composable,
    customFilters: {
      search: (q: Row[], value: FilterValue) => q.filter((row) => String(row.title).includes(String(value))),
    },
    // The runtime asks for each sort term in turn: the first is the primary order (`Array.sort` is stable).
    orderBy: (q: Row[], field: string, direction: SortDirection, _ctx: Context, path?: { relationship: string }) => {
      const sign = direction === 'asc' ? 1 : -1;
      const key = (row: Row) => (path ? related(type, path.relationship, row).length : (row[field] as string));
      const order = [
        ...(ordered.get(q) ?? []),
        (a: Row, b: Row) => (key(a) < key(b) ? -sign : key(a) > key(b) ? sign : 0),
      ];
      const sorted = rows
        .filter((row) => q.includes(row))
        .sort((a, b) => {
          for (const compare of order) if (compare(a, b) !== 0) return compare(a, b);
          return 0;
        });
      ordered.set(sorted, order);
      return sorted;
    },
    loadRelated: (relationship: Relationship, models: readonly Row[]) =>
      models.map((row) =>
        relationship.cardinality === 'one'
          ? (related(type, relationship.name, row)[0] ?? null)
          : related(type, relationship.name, row),
      ),
    countRelated: (relationship: Relationship, models: readonly Row[]) => {
      calls.countRelated.push(`${type}.${relationship.name}:${models.map((m) => m.id).join(',')}`);
      return models.map((row) => related(type, relationship.name, row).length);
    },
  };
}

function compareTo(key: unknown[], after: readonly unknown[], page: CursorPage): number {
  for (let i = 0; i < key.length; i++) {
    const sign = page.sorts[i]!.direction === 'asc' ? 1 : -1;
    if (key[i] !== after[i]) return (key[i]! < after[i]! ? -1 : 1) * sign;
  }
  return 0;
}

const signedIn = (ctx: Context) => ctx.getAttribute('user') !== undefined;

function api(composable: string[] = []): { api: JsonApi; calls: Calls } {
  const calls: Calls = { where: [], countRelated: [] };
  const api = new JsonApi();
  api.resource({
    ...defineResource({
      type: 'people',
      fields: [Attribute.make('name'), ToMany.make('articles').type('articles').includable().countable()],
      endpoints: [Show.make(), Index.make().paginate(10, 50)],
      filters: [WhereCount.make('articleCount').relationship('articles')],
      sorts: [SortBy.make('name'), SortWithCount.make('articleCount').relationship('articles')],
    }),
    ...layer('people', people, calls),
  });
  api.resource({
    ...defineResource({
      type: 'articles',
      fields: [
        Attribute.make('title'),
        Attribute.make('status'),
        ToOne.make('author').type('people').includable(),
        ToMany.make('tags').type('tags').includable().countable(),
      ],
      endpoints: [Show.make(), Index.make().paginate(10, 50).cursor()],
      filters: [
        Where.make('title'),
        Where.make('status').visible(signedIn),
        Where.make('author'),
        Where.make('author.name'),
        Where.make('tags.name'),
        WhereCount.make('tagCount').relationship('tags'),
        CustomFilter.make('search'),
      ],
      sorts: [SortBy.make('title'), SortWithCount.make('tagCount').relationship('tags')],
    }),
    ...layer('articles', articles, calls, composable),
  });
  api.resource({
    ...defineResource({
      type: 'tags',
      fields: [Attribute.make('name')],
      endpoints: [Show.make(), Index.make()],
    }),
    ...layer('tags', tags, calls),
  });
  return { api, calls };
}

async function get(served: JsonApi, path: string, user?: string): Promise<Doc> {
  const response = await served.fetch(request(path), { attributes: user ? { user } : {} });
  const document = await json(response);
  expect(response.status, JSON.stringify(document.errors)).toBe(200);
  return document;
}

async function refused(served: JsonApi, path: string, user?: string): Promise<Doc> {
  return (await jsonError(await served.fetch(request(path), { attributes: user ? { user } : {} }), 400)).errors[0];
}

const ids = (document: Doc) => document.data.map((r: Doc) => r.id);

describe('boolean groups reach the data layer as one tree', () => {
  test('an or of a value and a path is one group; its siblings are separate calls', async () => {
    const { api: served, calls } = api();
    const document = await get(
      served,
      '/articles?filter[or][0][status]=draft&filter[or][1][author.name]=Grace&filter[title][contains]=a',
      '1',
    );
    expect(ids(document)).toEqual(['1', '2']);
    expect(calls.where).toEqual([
      { field: 'title', op: 'contains', value: 'a', caseInsensitive: false },
      {
        op: 'or',
        conditions: [
          { field: 'status', op: 'eq', value: 'draft' },
          {
            field: 'author.name',
            op: 'eq',
            value: 'Grace',
            path: { relationship: 'author', type: 'people', attribute: 'name', many: false },
          },
        ],
      },
    ]);
  });

  test('not over a to-many path keeps resources with no related match, those without any related too', async () => {
    const { api: served } = api();
    expect(ids(await get(served, '/articles?filter[not][tags.name]=ts'))).toEqual(['2']);
  });

  test('an and outside any or or not is flattened into the request own clauses', async () => {
    const { api: served, calls } = api();
    await get(served, '/articles?filter[and][0][title][contains]=a&filter[and][1][tagCount][gte]=1');
    expect(calls.where.map((c) => c.op)).toEqual(['contains', 'gte']);
  });

  test('the DEMO example nests and, or and not', async () => {
    const { api: served, calls } = api();
    const document = await get(
      served,
      '/articles?filter[and][0][title][contains]=a&filter[and][1][or][0][title][contains]=m&filter[and][1][or][1][not][status]=draft',
      '1',
    );
    expect(ids(document)).toEqual(['2', '3']);
    expect(calls.where[1]).toEqual({
      op: 'or',
      conditions: [
        { field: 'title', op: 'contains', value: 'm', caseInsensitive: false },
        { op: 'not', conditions: [{ field: 'status', op: 'eq', value: 'draft' }] },
      ],
    });
  });

  test('a count filter is a condition that names the relationship counted, its value an integer', async () => {
    const { api: served, calls } = api();
    expect(ids(await get(served, '/articles?filter[tagCount][gte]=1'))).toEqual(['1', '3']);
    expect(calls.where).toEqual([
      { field: 'tagCount', op: 'gte', value: 1, count: { relationship: 'tags', type: 'tags' } },
    ]);
    expect(ids(await get(served, '/articles?filter[tagCount]=0'))).toEqual(['2']);
  });

  test('counts reach the data layer after the other clauses, whatever their place in the query', async () => {
    const { api: served, calls } = api();
    const document = await get(
      served,
      '/articles?filter[tagCount][gte]=1&filter[or][0][status]=draft&filter[or][1][title]=gamma&filter[title][contains]=a&filter[not][tagCount]=0',
      '1',
    );
    expect(ids(document)).toEqual(['1', '3']);
    // A count is a subquery per row: the databases that test a where's terms in order test it last.
    expect(calls.where.map((c) => (c.op === 'not' ? 'not tagCount' : c.op))).toEqual([
      'contains',
      'or',
      'gte',
      'not tagCount',
    ]);
  });

  test('a composable custom filter stands in a group as a custom condition', async () => {
    const { api: served, calls } = api(['search']);
    expect(ids(await get(served, '/articles?filter[or][0][search]=gam&filter[or][1][title]=beta'))).toEqual(['2', '3']);
    expect(calls.where[0]).toEqual({
      op: 'or',
      conditions: [
        { op: 'custom', field: 'search', value: 'gam' },
        { field: 'title', op: 'eq', value: 'beta' },
      ],
    });
  });

  test('a custom filter outside any or or not still goes to customFilters', async () => {
    const { api: served, calls } = api();
    expect(ids(await get(served, '/articles?filter[and][0][search]=gam'))).toEqual(['3']);
    expect(calls.where).toEqual([]);
  });
});

describe('what a group may not hold is a 400 naming the exact parameter', () => {
  test.each([
    [
      'a filter hidden from an anonymous request',
      'filter[or][0][status]=draft&filter[or][1][title]=a',
      'filter[or][0][status]',
      'unknown_filter',
    ],
    ['an unknown filter deep inside', 'filter[and][1][or][0][nope]=a', 'filter[and][1][or][0][nope]', 'unknown_filter'],
    [
      'an operator the filter does not take',
      'filter[or][1][title]=x&filter[or][0][tagCount][contains]=a',
      'filter[or][0][tagCount][contains]',
      'unsupported_operator',
    ],
    [
      'a count that is not an integer',
      'filter[not][tagCount][gte]=1.5',
      'filter[not][tagCount][gte]',
      'invalid_filter_value',
    ],
    [
      'a list on a count',
      'filter[or][0][tagCount][]=1&filter[or][1][title]=a',
      'filter[or][0][tagCount][]',
      'unsupported_operator',
    ],
    [
      'an and-only custom filter inside an or',
      'filter[or][0][search]=a&filter[or][1][title]=b',
      'filter[or][0][search]',
      'unsupported_filter',
    ],
    ['an and-only custom filter inside a not', 'filter[not][search]=a', 'filter[not][search]', 'unsupported_filter'],
  ])('%s', async (_, query, parameter, code) => {
    const error = await refused(api().api, `/articles?${query}`);
    expect(error.source).toEqual({ parameter });
    expect(error.code).toBe(code);
  });
});

describe('sorting by a count', () => {
  test('by offset, ties broken by the next term', async () => {
    const { api: served } = api();
    expect(ids(await get(served, '/articles?sort=-tagCount,title'))).toEqual(['3', '1', '2']);
    expect(ids(await get(served, '/people?sort=-articleCount,name'))).toEqual(['1', '2']);
  });

  test('by cursor: the cursors carry the counts the data layer counts for the page edges', async () => {
    const { api: served, calls } = api();
    const first = await get(served, '/articles?sort=-tagCount&page[size]=2');
    expect(ids(first)).toEqual(['3', '1']);
    expect(calls.countRelated).toEqual(['articles.tags:3,1']);
    const next = await get(
      served,
      new URL(first.links.next as string).pathname + new URL(first.links.next as string).search,
    );
    expect(ids(next)).toEqual(['2']);
  });
});

describe('withCount', () => {
  test('puts meta.count on every resource object of the type, primary and included, one call per type and relationship', async () => {
    const { api: served, calls } = api();
    const document = await get(served, '/people?include=articles&withCount=articles,tags');
    expect(document.data.map((p: Doc) => p.relationships.articles.meta)).toEqual([{ count: 2 }, { count: 1 }]);
    const included = Object.fromEntries(
      document.included.map((a: Doc) => [a.id, a.relationships.tags.meta.count as number]),
    );
    expect(included).toEqual({ '1': 1, '2': 0, '3': 2 });
    expect(calls.countRelated.toSorted()).toEqual(['articles.tags:1,3,2', 'people.articles:1,2']);
  });

  test('on a relationship without data, and on a single resource', async () => {
    const { api: served } = api();
    const document = await get(served, '/articles/3?withCount=tags');
    expect(document.data.relationships.tags).toEqual({
      links: { self: 'http://localhost/articles/3/relationships/tags', related: 'http://localhost/articles/3/tags' },
      meta: { count: 2 },
    });
  });

  test('without withCount nothing is counted', async () => {
    const { api: served, calls } = api();
    const document = await get(served, '/articles?include=tags');
    expect(document.data[0].relationships.tags.meta).toBeUndefined();
    expect(calls.countRelated).toEqual([]);
  });

  test.each([
    ['an unknown name', '/articles?withCount=nope'],
    ['a relationship that is not countable', '/articles?withCount=author'],
    ['a countable relationship of a type the document does not hold', '/articles?withCount=articles'],
    ['a relationship endpoint', '/articles/1/relationships/tags?withCount=tags'],
  ])('%s is a 400 at withCount', async (_, path) => {
    const error = await refused(api().api, path);
    expect(error.source).toEqual({ parameter: 'withCount' });
  });
});
