/**
 * cachedStatements on a real better-sqlite3 database under Kysely: statements are prepared once
 * per SQL text and give the same answers as fresh ones, busy statements are not shared, the
 * cache stays bounded, and schema changes are seen. The store's direct reads make the same rows
 * from raw arrays (allRows).
 */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { cachedStatements } from '@jsonapi-gen/kysely';
import { allRows } from '../../integrations/kysely/statements.js';
import { afterEach, describe, expect, it } from 'vitest';

interface Db {
  notes: { id: number; body: string };
}

const open: Array<Kysely<Db>> = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.destroy();
});

/** A Kysely database on an in-memory SQLite with ten notes; `prepared` lists every SQL text prepared. */
async function database(size?: number) {
  const sqlite = new SQLite(':memory:');
  const prepared: string[] = [];
  const counting = {
    close: () => sqlite.close(),
    prepare: (text: string) => (prepared.push(text), sqlite.prepare(text)),
  };
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: cachedStatements(counting, size) }) });
  open.push(db);
  await db.schema
    .createTable('notes')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('body', 'text')
    .execute();
  await db
    .insertInto('notes')
    .values(Array.from({ length: 10 }, (_, i) => ({ id: i + 1, body: `note ${i + 1}` })))
    .execute();
  prepared.length = 0;
  return { db, prepared };
}

/** Three queries with three different SQL texts. */
function threeStatements(db: Kysely<Db>) {
  return [
    () => db.selectFrom('notes').select('id').where('id', '=', 1).execute(),
    () => db.selectFrom('notes').select('body').where('id', '=', 1).execute(),
    () => db.selectFrom('notes').select(['id', 'body']).where('id', '=', 1).execute(),
  ] as const;
}

describe('cachedStatements', () => {
  it('prepares a SQL text once, and each run binds its own parameters', async () => {
    const { db, prepared } = await database();
    for (let id = 1; id <= 10; id++) {
      const row = await db.selectFrom('notes').selectAll().where('id', '=', id).executeTakeFirst();
      expect(row).toEqual({ id, body: `note ${id}` });
    }
    await db.updateTable('notes').set({ body: 'changed' }).where('id', '=', 3).execute();
    await db.updateTable('notes').set({ body: 'changed too' }).where('id', '=', 4).execute();
    const rows = await db.selectFrom('notes').select('body').where('id', 'in', [3, 4]).orderBy('id').execute();
    expect(rows.map((r) => r.body)).toEqual(['changed', 'changed too']);
    expect(prepared).toHaveLength(3);
  });

  it('does not hand out a statement that is still iterating (busy): a fresh one runs alongside', async () => {
    const sqlite = new SQLite(':memory:');
    try {
      sqlite.exec('create table t (n integer); insert into t values (1), (2), (3)');
      const database = cachedStatements(sqlite);
      const text = 'select n from t order by n';
      const first = database.prepare(text);
      const rows = first.iterate([]);
      expect(rows.next().value).toEqual({ n: 1 });
      const second = database.prepare(text);
      expect(second).not.toBe(first);
      expect(second.all([])).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect([...rows]).toEqual([{ n: 2 }, { n: 3 }]);
      expect(database.prepare(text)).toBe(first); // done iterating: reused again
    } finally {
      sqlite.close();
    }
  });

  it('keeps at most `size` statements, dropping the least recently used', async () => {
    const { db, prepared } = await database(2);
    const [a, b, c] = threeStatements(db);
    await a();
    await b();
    await a(); // a is now the most recent
    await c(); // drops b
    await a();
    expect(prepared).toHaveLength(3);
    await b();
    expect(prepared).toHaveLength(4);
  });

  it('keeps the statement it has just prepared when every other one was used since', async () => {
    const { db, prepared } = await database(2);
    const [a, b, c] = threeStatements(db);
    await a();
    await b();
    await a();
    await b(); // both used since they came in
    await c(); // drops a, the older of the two
    await c();
    await b();
    expect(prepared).toHaveLength(3);
    await a();
    expect(prepared).toHaveLength(4);
  });

  it('sees schema changes: a cached select * returns a column added later', async () => {
    const { db } = await database();
    const all = () => db.selectFrom('notes').selectAll().where('id', '=', 1).executeTakeFirst();
    expect(await all()).toEqual({ id: 1, body: 'note 1' });
    await sql`alter table notes add column done integer not null default 0`.execute(db);
    expect(await all()).toEqual({ id: 1, body: 'note 1', done: 0 });
  });
});

describe('allRows: rows built from better-sqlite3 raw arrays', () => {
  const sqlite = new SQLite(':memory:');
  sqlite.exec(`create table t (id integer primary key, name text, score real, data blob, note text);
    insert into t values (1, 'a', 1.5, x'0102', null), (2, 'b', null, null, 'x'), (9007199254740991, '', 0, x'', '')`);

  it.each([
    ['select * from t order by id', []],
    ['select id, name as "a b", score, note from t where id > ? order by id', [1]],
    ['select t.id, t.name, other.id as id from t join t as other on other.id = t.id order by t.id', []],
    ['select name, count(*) as n from t group by name order by name', []],
    ['select * from t where id = ?', [42]],
  ] as const)(
    'answers %s exactly as better-sqlite3 does, and leaves the statement in object mode',
    (text, parameters) => {
      const statement = sqlite.prepare(text);
      const expected = statement.all(...parameters);
      expect(allRows(statement, parameters)).toEqual(expected);
      expect(allRows(statement, parameters)).toEqual(expected); // the made maker, reused
      expect(statement.all(...parameters)).toEqual(expected); // objects again for anyone else
    },
  );

  it('makes rows of the columns a statement has now: after a column is added, and after its table is rebuilt in another order (through cachedStatements)', () => {
    const database = new SQLite(':memory:');
    database.exec(`create table s (a integer, b text); insert into s values (1, 'x')`);
    const cached = cachedStatements(database);
    const run = (text: string) => cached.prepare(text).run([]);
    const statement = cached.prepare('select * from s') as unknown as SQLite.Statement;
    expect(allRows(statement, [])).toEqual([{ a: 1, b: 'x' }]);
    database.exec('alter table s add column c integer'); // past cachedStatements: the row's width tells
    expect(allRows(statement, [])).toEqual([{ a: 1, b: 'x', c: null }]);
    // SQLite's way to change a table: a new one, the rows copied, the old one dropped. Same width, other order.
    run('create table s2 (b text, c integer, a integer)');
    run('insert into s2 (a, b, c) select a, b, c from s');
    run('drop table s');
    run('alter table s2 rename to s');
    expect(allRows(statement, [])).toEqual([{ a: 1, b: 'x', c: null }]);
    expect(Object.keys(allRows(statement, [])[0]!)).toEqual(['b', 'c', 'a']);
    database.close();
  });

  it('gives what better-sqlite3 gives for a column named __proto__ (it sets the prototype, as a literal does)', () => {
    for (const column of ['id', 'note']) {
      const statement = sqlite.prepare(`select ${column} as "__proto__", name from t order by id`);
      const rows = allRows(statement, []);
      const expected = statement.all() as Record<string, unknown>[];
      expect(rows.map((row) => [Object.getPrototypeOf(row), Object.keys(row), row.name])).toEqual(
        expected.map((row) => [Object.getPrototypeOf(row), Object.keys(row), row.name]),
      );
    }
  });
});
