import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { orderByColumn, whereColumn } from './filters.js';
import { ListQuery } from './list-query.js';

const db = new Kysely<any>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const articles = () =>
  ListQuery.from('articles', db, (on) => on.selectFrom('articles').selectAll('articles'), 'articles list');

describe('ListQuery', () => {
  it('one value is one bound value, compared with the table-qualified column', () => {
    const q = articles().condition('title', { op: 'eq', value: "x' OR 1=1 --" }, 'sqlite');
    const compiled = q.build().compile();
    expect(compiled.sql).toBe('select "articles".* from "articles" where "articles"."title" = ?');
    expect(compiled.parameters).toEqual(["x' OR 1=1 --"]);
    expect(q.values).toEqual(compiled.parameters);
  });

  it('several values are IN with one parameter per value; none match nothing', () => {
    const compiled = articles()
      .condition('author_id', { op: 'in', value: ['1', '1); DROP TABLE articles; --'] }, 'sqlite')
      .build()
      .compile();
    expect(compiled.sql).toBe('select "articles".* from "articles" where "articles"."author_id" in (?, ?)');
    expect(compiled.parameters).toEqual(['1', '1); DROP TABLE articles; --']);
    expect(articles().condition('title', { op: 'in', value: [] }, 'sqlite').build().compile().sql).toMatch(
      /where 1 = 0$/,
    );
  });

  it('keeps an already qualified column', () => {
    expect(articles().condition('people.name', { op: 'eq', value: 'x' }, 'sqlite').build().compile().sql).toContain(
      '"people"."name" = ?',
    );
  });

  it('binds its values in the order the SQL takes them: filters, then the page', () => {
    const q = articles()
      .condition('author_id', { op: 'in', value: ['1', '2'] }, 'sqlite')
      .orderBy('created_at', 'desc')
      .condition('status', { op: 'eq', value: 'published' }, 'sqlite')
      .page('articles.id', 20, 40);
    const compiled = q.build().compile();
    expect(compiled.sql).toBe(
      'select "articles".* from "articles" where "articles"."author_id" in (?, ?) and "articles"."status" = ? order by "articles"."created_at" desc, "articles"."id" limit ? offset ?',
    );
    expect(q.values).toEqual(compiled.parameters);
  });

  it('has one shape per SQL text: the same steps with other values share it, another column, arity or direction does not', () => {
    const shape = (q: ListQuery) => q.shape;
    expect(shape(articles().condition('title', { op: 'eq', value: 'a' }, 'sqlite'))).toBe(
      shape(articles().condition('title', { op: 'eq', value: 'b' }, 'sqlite')),
    );
    const others = [
      articles().condition('title', { op: 'in', value: ['a', 'b'] }, 'sqlite'),
      articles().condition('body', { op: 'eq', value: 'a' }, 'sqlite'),
      articles().condition('title', { op: 'eq', value: 'a' }, 'sqlite').orderBy('title', 'asc'),
      articles().condition('title', { op: 'eq', value: 'a' }, 'sqlite').orderBy('title', 'desc'),
      articles().condition('title', { op: 'eq', value: 'a' }, 'sqlite').page('articles.id', 10, 0),
    ];
    expect(
      new Set([shape(articles().condition('title', { op: 'eq', value: 'a' }, 'sqlite')), ...others.map(shape)]).size,
    ).toBe(6);
  });

  it('a keyset page binds its values in the order the SQL takes them, with a leading bound on the first column', () => {
    const q = articles()
      .condition('status', { op: 'eq', value: 'published' }, 'sqlite')
      .keyset(
        [
          { column: 'created_at', direction: 'desc' },
          { column: 'id', direction: 'asc' },
        ],
        ['2024-01-01T00:00:00.000Z', 7],
        21,
      );
    const compiled = q.build().compile();
    expect(compiled.sql).toBe(
      'select "articles".* from "articles" where "articles"."status" = ? and "articles"."created_at" <= ? and ("articles"."created_at" < ? or ("articles"."created_at" = ? and "articles"."id" > ?)) order by "articles"."created_at" desc, "articles"."id" asc limit ?',
    );
    expect(q.values).toEqual(compiled.parameters);
    expect(q.shape).toBeDefined();
  });

  it('a step on the Kysely builder itself has no shape from then on: the query is built anew each time', () => {
    const q = articles()
      .condition('title', { op: 'eq', value: 'a' }, 'sqlite')
      .apply((b) => b.where('articles.body', 'like', '%x%'))
      .orderBy('created_at', 'asc');
    expect(q.shape).toBeUndefined();
    expect(q.build().compile().sql).toBe(
      'select "articles".* from "articles" where "articles"."title" = ? and "articles"."body" like ? order by "articles"."created_at" asc',
    );
  });
});

describe('whereColumn and orderByColumn (for hand-written data layers)', () => {
  const plain = () => db.selectFrom('articles').selectAll('articles');
  it('bind every value, = for one, in for several, nothing for none', () => {
    expect(whereColumn(plain(), 'articles.title', ['x']).compile().sql).toMatch(/where "articles"."title" = \?$/);
    expect(whereColumn(plain(), 'articles.author_id', ['1', '2']).compile().parameters).toEqual(['1', '2']);
    expect(whereColumn(plain(), 'title', []).compile().sql).toMatch(/where 1 = 0$/);
    expect(orderByColumn(plain(), 'articles.created_at', 'desc').compile().sql).toMatch(
      /order by "articles"."created_at" desc$/,
    );
  });
});
