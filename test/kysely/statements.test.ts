/**
 * cachedStatements on a real better-sqlite3 database under Kysely: statements are prepared once
 * per SQL text and give the same answers as fresh ones, busy statements are not shared, the
 * cache stays bounded, and schema changes are seen.
 */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { cachedStatements } from 'jsonapi-gen/kysely';
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
  const counting = { close: () => sqlite.close(), prepare: (text: string) => (prepared.push(text), sqlite.prepare(text)) };
  const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: cachedStatements(counting, size) }) });
  open.push(db);
  await db.schema.createTable('notes').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('body', 'text').execute();
  await db.insertInto('notes').values(Array.from({ length: 10 }, (_, i) => ({ id: i + 1, body: `note ${i + 1}` }))).execute();
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
      sqlite.exec("create table t (n integer); insert into t values (1), (2), (3)");
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
