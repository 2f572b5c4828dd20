import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { orderByColumn, tableOf, whereColumn } from './filters.js';

const db = new Kysely<any>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const articles = () => db.selectFrom('articles').selectAll('articles');

describe('whereColumn', () => {
  it('one value is one bound value, compared with the table-qualified column', () => {
    const q = whereColumn(articles(), 'title', ["x' OR 1=1 --"]).compile();
    expect(q.sql).toBe('select "articles".* from "articles" where "articles"."title" = ?');
    expect(q.parameters).toEqual(["x' OR 1=1 --"]);
  });

  it('several values are IN with one parameter per value', () => {
    const q = whereColumn(articles(), 'author_id', ['1', '1); DROP TABLE articles; --']).compile();
    expect(q.sql).toBe('select "articles".* from "articles" where "articles"."author_id" in (?, ?)');
    expect(q.parameters).toEqual(['1', '1); DROP TABLE articles; --']);
  });

  it('no values match nothing', () => {
    expect(whereColumn(articles(), 'title', []).compile().sql).toMatch(/where 1 = 0$/);
  });

  it('keeps an already qualified column, and qualifies by the alias when the table has one', () => {
    expect(whereColumn(articles(), 'people.name', ['x']).compile().sql).toContain('"people"."name" = ?');
    const aliased = db.selectFrom('articles as a').selectAll('a');
    expect(whereColumn(aliased, 'title', ['x']).compile().sql).toContain('"a"."title" = ?');
  });

  it('qualifies by the first table of a join', () => {
    const joined = db.selectFrom('tags').selectAll('tags').innerJoin('article_tags', 'article_tags.tag_id', 'tags.id');
    expect(whereColumn(joined, 'name', ['x']).compile().sql).toContain('"tags"."name" = ?');
  });
});

describe('orderByColumn', () => {
  it('orders by the qualified column in the direction given', () => {
    const q = orderByColumn(articles(), 'created_at', 'desc');
    expect(q.compile().sql).toBe('select "articles".* from "articles" order by "articles"."created_at" desc');
    expect(orderByColumn(articles(), 'title', 'asc').compile().sql).toMatch(/order by "articles"."title" asc$/);
  });
});

describe('tableOf', () => {
  it('names the table or alias a query reads first', () => {
    expect(tableOf(articles())).toBe('articles');
    expect(tableOf(db.selectFrom('articles as a').selectAll())).toBe('a');
  });
});
