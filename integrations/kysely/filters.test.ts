import { Context } from 'jsonapi-gen';
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SortColumn, Where, tableOf } from './filters.js';

const db = new Kysely<any>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const ctx = new Context(new Request('http://localhost/'));
const articles = () => db.selectFrom('articles').selectAll('articles');

describe('Where', () => {
  it('a string is one bound value, compared with the table-qualified column', () => {
    const q = Where.make('title').apply(articles(), "x' OR 1=1 --", ctx).compile();
    expect(q.sql).toBe('select "articles".* from "articles" where "articles"."title" = ?');
    expect(q.parameters).toEqual(["x' OR 1=1 --"]);
  });

  it('an array is IN with one parameter per value', () => {
    const q = Where.make('author').column('author_id').apply(articles(), ['1', '1); DROP TABLE articles; --'], ctx).compile();
    expect(q.sql).toBe('select "articles".* from "articles" where "articles"."author_id" in (?, ?)');
    expect(q.parameters).toEqual(['1', '1); DROP TABLE articles; --']);
  });

  it('an empty array matches nothing', () => {
    expect(Where.make('title').apply(articles(), [], ctx).compile().sql).toMatch(/where 1 = 0$/);
  });

  it('keeps an already qualified column, and qualifies by the alias when the table has one', () => {
    expect(Where.make('a').column('people.name').apply(articles(), 'x', ctx).compile().sql).toContain('"people"."name" = ?');
    const aliased = db.selectFrom('articles as a').selectAll('a');
    expect(Where.make('title').apply(aliased, 'x', ctx).compile().sql).toContain('"a"."title" = ?');
  });

  it('qualifies by the first table of a join', () => {
    const joined = db.selectFrom('tags').selectAll('tags').innerJoin('article_tags', 'article_tags.tag_id', 'tags.id');
    expect(Where.make('name').apply(joined, 'x', ctx).compile().sql).toContain('"tags"."name" = ?');
  });
});

describe('SortColumn', () => {
  it('orders by the qualified column in the direction given', () => {
    const q = SortColumn.make('createdAt').column('created_at').apply(articles(), 'desc', ctx);
    expect(q.compile().sql).toBe('select "articles".* from "articles" order by "articles"."created_at" desc');
    expect(SortColumn.make('title').apply(articles(), 'asc', ctx).compile().sql).toMatch(/order by "articles"."title" asc$/);
  });
});

describe('tableOf', () => {
  it('names the table or alias a query reads first', () => {
    expect(tableOf(articles())).toBe('articles');
    expect(tableOf(db.selectFrom('articles as a').selectAll())).toBe('a');
  });
});
