/**
 * Property: on every backend of the demo (SQLite, PostgreSQL, the memory store), any tree of
 * `filter[and]`, `filter[or]` and `filter[not]` groups, up to 4 deep, over the articles' filters
 * (attributes, the author, paths through author and tags, comment and tag counts) selects exactly
 * the articles plain TypeScript selects; any sort with a count, offset or cursor paged, serves
 * the order plain TypeScript computes (fast-check).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Demo } from '../../examples/blog/server.js';
import { BACKENDS, startDemoOn } from '../support/demo.js';
import { type BlogArticle, allPages, blogArticles, idsOf, varyCommentCounts } from '../support/blog-articles.js';

const SEED = 30;

/** One clause: `[field]` or `[field][op]`, its value, and whether an article meets it. */
interface Leaf {
  field: string;
  op?: string;
  value: string;
  keep: (a: BlogArticle) => boolean;
}

/** A clause set: its clauses and at most one group, all of which hold. */
interface Clauses {
  leaves: Leaf[];
  group?: { op: 'and' | 'or'; items: Clauses[] } | { op: 'not'; body: Clauses };
}

const COMPARE = {
  eq: (x: string | number, y: string | number) => x === y,
  ne: (x: string | number, y: string | number) => x !== y,
  lt: (x: string | number, y: string | number) => x < y,
  lte: (x: string | number, y: string | number) => x <= y,
  gt: (x: string | number, y: string | number) => x > y,
  gte: (x: string | number, y: string | number) => x >= y,
};
const ORDERING = Object.keys(COMPARE) as Array<keyof typeof COMPARE>;
const TEXT = {
  eq: (x: string, y: string) => x === y,
  contains: (x: string, y: string) => x.includes(y),
  startsWith: (x: string, y: string) => x.startsWith(y),
  endsWith: (x: string, y: string) => x.endsWith(y),
};

/** Whether an article meets every clause of `set`, as QL-DESIGN.md has it. */
function holds(a: BlogArticle, set: Clauses): boolean {
  if (!set.leaves.every((leaf) => leaf.keep(a))) return false;
  const { group } = set;
  if (!group) return true;
  if (group.op === 'not') return !holds(a, group.body);
  return group.op === 'and' ? group.items.every((s) => holds(a, s)) : group.items.some((s) => holds(a, s));
}

/** `set` as query parameters under `prefix`: `filter[or][0][status]=draft`, `filter[not][tags.name]=x`. */
function render(set: Clauses, prefix = 'filter'): string[] {
  const leaves = set.leaves.map(
    (l) => `${prefix}[${l.field}]${l.op ? `[${l.op}]` : ''}=${encodeURIComponent(l.value)}`,
  );
  const { group } = set;
  if (!group) return leaves;
  if (group.op === 'not') return [...leaves, ...render(group.body, `${prefix}[not]`)];
  return [...leaves, ...group.items.flatMap((item, i) => render(item, `${prefix}[${group.op}][${i}]`))];
}

function clauseCount(set: Clauses): number {
  const { group } = set;
  const inner = !group
    ? 0
    : group.op === 'not'
      ? clauseCount(group.body)
      : group.items.reduce((n, s) => n + clauseCount(s), 0);
  return set.leaves.length + inner;
}

describe.each(BACKENDS)('the query language, property-based, on %s', (backend) => {
  let demo: Demo;
  let all: BlogArticle[];

  beforeAll(async () => {
    demo = await startDemoOn(backend, SEED);
    await varyCommentCounts(demo.url, SEED);
    all = await blogArticles(demo.url);
  });
  afterAll(async () => {
    await demo?.close();
  });

  /** A clause on one of the articles' filters, its value taken from a seeded article. */
  const leaf = (): fc.Arbitrary<Leaf> =>
    fc.nat({ max: SEED - 1 }).chain((i) => {
      const a = all[i]!;
      const tag = a.tagNames[0] ?? 'api';
      return fc.oneof(
        fc
          .tuple(
            fc.constantFrom(...(Object.keys(TEXT) as Array<keyof typeof TEXT>)),
            fc.nat({ max: 20 }),
            fc.nat({ max: 6 }),
          )
          .map(([op, from, length]) => {
            const term = op === 'eq' ? a.title : a.title.slice(from, from + length + 1);
            return { field: 'title', op, value: term, keep: (x: BlogArticle) => TEXT[op](x.title, term) };
          }),
        fc.constantFrom(undefined, 'ne', 'in', 'nin').map((op) => ({
          field: 'status',
          ...(op && { op }),
          value: a.status,
          keep: (x: BlogArticle) => (op === 'ne' || op === 'nin' ? x.status !== a.status : x.status === a.status),
        })),
        fc.constantFrom(...ORDERING).map((op) => ({
          field: 'createdAt',
          op,
          value: a.createdAt,
          keep: (x: BlogArticle) => COMPARE[op](x.createdAt, a.createdAt),
        })),
        fc.constant({ field: 'author', value: a.authorId, keep: (x: BlogArticle) => x.authorId === a.authorId }),
        fc.constant({
          field: 'author.name',
          value: a.authorName,
          keep: (x: BlogArticle) => x.authorName === a.authorName,
        }),
        fc.nat({ max: 4 }).map((cut) => {
          const part = a.authorName.slice(cut, cut + 3);
          return {
            field: 'author.name',
            op: 'contains',
            value: part,
            keep: (x: BlogArticle) => x.authorName.includes(part),
          };
        }),
        fc.constant({ field: 'tags.name', value: tag, keep: (x: BlogArticle) => x.tagNames.includes(tag) }),
        fc.constant({
          field: 'tags.name',
          op: 'in',
          value: `${tag},databases`,
          keep: (x: BlogArticle) => x.tagNames.includes(tag) || x.tagNames.includes('databases'),
        }),
        fc.tuple(fc.constantFrom(...ORDERING), fc.nat({ max: 6 })).map(([op, n]) => ({
          field: 'commentCount',
          op,
          value: String(n),
          keep: (x: BlogArticle) => COMPARE[op](x.commentCount, n),
        })),
        fc.tuple(fc.constantFrom(...ORDERING), fc.nat({ max: 4 })).map(([op, n]) => ({
          field: 'tagCount',
          op,
          value: String(n),
          keep: (x: BlogArticle) => COMPARE[op](x.tagCount, n),
        })),
      );
    });

  /** A clause set nested `depth` groups deep: one or two clauses, or a group, or both. */
  const clauses = (depth: number): fc.Arbitrary<Clauses> => {
    const leaves = fc.uniqueArray(leaf(), { maxLength: 2, selector: (l) => `${l.field}[${l.op ?? ''}]` });
    if (depth === 4)
      return fc
        .uniqueArray(leaf(), { minLength: 1, maxLength: 2, selector: (l) => `${l.field}[${l.op ?? ''}]` })
        .map((l) => ({ leaves: l }));
    const inner = clauses(depth + 1);
    const group = fc.oneof(
      fc.record({
        op: fc.constantFrom('and' as const, 'or' as const),
        items: fc.array(inner, { minLength: 1, maxLength: 3 }),
      }),
      fc.record({ op: fc.constant('not' as const), body: inner }),
    );
    return fc
      .record({ leaves, group: fc.option(group, { nil: undefined, freq: 2 }) })
      .map(({ leaves, group }) => (group ? { leaves, group } : { leaves }))
      .filter((set) => set.leaves.length > 0 || set.group !== undefined);
  };
  const tree = () => clauses(0).filter((set) => set.group !== undefined && clauseCount(set) <= 32);

  it('selects what plain TypeScript selects, for any tree of and, or and not', async () => {
    let selected = 0;
    await fc.assert(
      fc.asyncProperty(tree(), async (set) => {
        const query = render(set).join('&');
        const { data } = await allPages(`${demo.url}/articles?page[limit]=50&${query}`);
        const want = all.filter((a) => holds(a, set)).map((a) => a.id);
        if (want.length > 0 && want.length < all.length) selected++;
        expect(
          idsOf(data).sort((x, y) => x - y),
          query,
        ).toEqual(want.sort((x, y) => x - y));
      }),
      { numRuns: 40 },
    );
    // Most trees select some but not all articles (a suite of empty or full answers would agree trivially).
    expect(selected).toBeGreaterThan(10);
  });

  /** A sort term: its name, and how it reads an article. */
  const SORTS: Record<string, (a: BlogArticle) => string | number> = {
    title: (a) => a.title,
    createdAt: (a) => a.createdAt,
    updatedAt: (a) => a.updatedAt,
    'author.name': (a) => a.authorName,
    commentCount: (a) => a.commentCount,
    tagCount: (a) => a.tagCount,
  };
  /** A count sort first, then up to two other terms, each either way. */
  const sortTerms = (names: string[]) =>
    fc
      .tuple(
        fc.constantFrom('commentCount', 'tagCount'),
        fc.uniqueArray(fc.constantFrom(...names), { maxLength: 2 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      )
      .map(([count, rest, descending]) =>
        [count, ...rest.filter((n) => n !== count)].map((name, i) => ({ name, descending: descending[i]! })),
      );
  const order = (terms: Array<{ name: string; descending: boolean }>) =>
    [...all]
      .sort((a, b) => {
        for (const { name, descending } of terms) {
          const [x, y] = [SORTS[name]!(a), SORTS[name]!(b)];
          if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
        }
        return a.id - b.id;
      })
      .map((a) => a.id);
  const sortParameter = (terms: Array<{ name: string; descending: boolean }>) =>
    terms.map((t) => `${t.descending ? '-' : ''}${t.name}`).join(',');

  it('serves the computed order across offset pages, for sorts by a count and tie-breakers', async () => {
    await fc.assert(
      fc.asyncProperty(sortTerms(Object.keys(SORTS)), fc.integer({ min: 3, max: 11 }), async (terms, size) => {
        const sort = sortParameter(terms);
        const { data } = await allPages(`${demo.url}/articles?sort=${sort}&page[limit]=${size}`);
        expect(idsOf(data), sort).toEqual(order(terms));
      }),
      { numRuns: 25 },
    );
  });

  it('serves the computed order across cursor pages, forward and back, for sorts by a count and tie-breakers', async () => {
    // Cursor pages sort by attributes that are never null and by counts, not through a relationship.
    const names = Object.keys(SORTS).filter((n) => n !== 'author.name');
    await fc.assert(
      fc.asyncProperty(sortTerms(names), fc.integer({ min: 3, max: 11 }), async (terms, size) => {
        const sort = sortParameter(terms);
        const forward = await allPages(`${demo.url}/articles?sort=${sort}&page[size]=${size}`);
        expect(idsOf(forward.data), sort).toEqual(order(terms));
        // Back from the last page by page[before] (the data layer reads every direction reversed).
        const backward = await allPages(forward.last, 'prev');
        expect(idsOf(backward.data), `${sort}, backward`).toEqual(order(terms));
      }),
      { numRuns: 25 },
    );
  });
});
