/**
 * Property: any combination of the blog's filter operators and paths, with values drawn from
 * the seeded data (so that they match something), selects on SQLite and PostgreSQL exactly the
 * articles the same filters select in plain TypeScript over every article (fast-check), on the
 * Kysely store (both runners) and on the Prisma store.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DRIZZLE_STORES,
  PRISMA_STORES,
  STORES,
  type Fixture,
  type ServedArticle,
  openFixture,
  servedArticles,
} from './harness.js';

/** One filter parameter and the same filter in TypeScript. */
interface Clause {
  parameter: string;
  keep: (a: ServedArticle) => boolean;
}

const ORDERING = {
  eq: (x: string, y: string) => x === y,
  ne: (x: string, y: string) => x !== y,
  lt: (x: string, y: string) => x < y,
  lte: (x: string, y: string) => x <= y,
  gt: (x: string, y: string) => x > y,
  gte: (x: string, y: string) => x >= y,
};
const TEXT = {
  eq: (x: string, y: string) => x === y,
  contains: (x: string, y: string) => x.includes(y),
  startsWith: (x: string, y: string) => x.startsWith(y),
  endsWith: (x: string, y: string) => x.endsWith(y),
};

describe.each([...STORES, ...PRISMA_STORES, ...DRIZZLE_STORES])(
  'filter operators, property-based, on %s, %s',
  (dialect, runner) => {
    let f: Fixture;
    let all: ServedArticle[];

    beforeAll(async () => {
      f = await openFixture(dialect, 40, runner);
      all = await servedArticles(f);
    });
    afterAll(async () => {
      await f?.close();
    });

    /** A clause on one of the blog's filters, its value taken from an article (and cut, for text operators). */
    const clause = (): fc.Arbitrary<Clause> =>
      fc.nat({ max: 39 }).chain((i) => {
        const a = all[i % all.length]!;
        return fc.oneof(
          fc.constantFrom(...(Object.keys(ORDERING) as Array<keyof typeof ORDERING>)).map((op) => ({
            parameter: `filter[createdAt][${op}]=${encodeURIComponent(a.createdAt)}`,
            keep: (x: ServedArticle) => ORDERING[op](x.createdAt, a.createdAt),
          })),
          fc
            .tuple(
              fc.constantFrom(...(Object.keys(TEXT) as Array<keyof typeof TEXT>)),
              fc.nat({ max: 8 }),
              fc.nat({ max: 8 }),
            )
            .map(([op, from, length]) => {
              const term = op === 'eq' ? a.title : a.title.slice(from, from + length + 1);
              return {
                parameter: `filter[title][${op}]=${encodeURIComponent(term)}`,
                keep: (x: ServedArticle) => TEXT[op](x.title, term),
              };
            }),
          fc.constantFrom('eq', 'ne').map((op) => ({
            parameter: `filter[status][${op}]=${a.status}`,
            keep: (x: ServedArticle) => (op === 'eq' ? x.status === a.status : x.status !== a.status),
          })),
          fc.constant({
            parameter: `filter[author.name]=${encodeURIComponent(a.author)}`,
            keep: (x: ServedArticle) => x.author === a.author,
          }),
          fc.constant({
            parameter: `filter[author.name][contains]=${encodeURIComponent(a.author.slice(0, 3))}`,
            keep: (x: ServedArticle) => x.author.includes(a.author.slice(0, 3)),
          }),
          ...(a.tags.length > 0
            ? [
                fc.constant({
                  parameter: `filter[tags.name]=${encodeURIComponent(a.tags[0]!)}`,
                  keep: (x: ServedArticle) => x.tags.includes(a.tags[0]!),
                }),
              ]
            : []),
        );
      });

    it('selects what plain TypeScript selects, for any combination of clauses on different filters', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(clause(), {
            minLength: 1,
            maxLength: 3,
            selector: (c) => c.parameter.slice(0, c.parameter.indexOf(']') + 1),
          }),
          async (clauses) => {
            const { status, body } = await f.request(
              'GET',
              `/articles?page[limit]=50&${clauses.map((c) => c.parameter).join('&')}`,
              '1',
            );
            expect(status, JSON.stringify(body?.errors)).toBe(200);
            const got = (body.data as Array<{ id: string }>).map((a) => a.id).sort((x, y) => Number(x) - Number(y));
            const want = all
              .filter((a) => clauses.every((c) => c.keep(a)))
              .map((a) => a.id)
              .sort((x, y) => Number(x) - Number(y));
            expect(got).toEqual(want);
          },
        ),
        { numRuns: 60 },
      );
    });
  },
);
