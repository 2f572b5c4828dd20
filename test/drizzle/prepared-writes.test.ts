/**
 * The writes the Drizzle store prepares once per shape (on SQLite) stay right: a value Drizzle
 * computes at each insert (`$defaultFn`) is computed again for every row, not kept from the
 * insert that prepared the statement; a value of SQL is written as SQL; a null is NULL, not
 * what the column's encoder makes of it; and rows of another shape (other properties sent) get
 * a statement of their own.
 */
import SQLite from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { Context } from 'jsonapi-gen';
import { afterAll, describe, expect, it } from 'vitest';
import { type WriteTable, createRow } from '../../integrations/drizzle/writes.js';

let tokens = 0;
const stamps = sqliteTable('stamps', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  note: text('note'),
  token: text('token')
    .notNull()
    .$defaultFn(() => `token ${++tokens}`),
});

/** Columns whose encoder turns a null into something else: a JSON text column, a boolean integer. */
const flags = sqliteTable('flags', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  meta: text('meta', { mode: 'json' }),
  done: integer('done', { mode: 'boolean' }),
});

const client = new SQLite(':memory:');
client.exec(
  'create table stamps (id integer primary key autoincrement, name text not null, note text, token text not null)',
);
client.exec('create table flags (id integer primary key autoincrement, name text not null, meta text, done integer)');
const db = drizzle({ client });
afterAll(() => void client.close());

const ctx = new Context(new Request('http://localhost/stamps', { method: 'POST' }), {});
const table = (serverSet?: WriteTable['serverSet']): WriteTable => ({
  type: 'stamps',
  table: stamps,
  id: stamps.id,
  attributes: { name: stamps.name, note: stamps.note },
  ...(serverSet && { serverSet }),
});
const create = (attributes: Record<string, string>, m = table()) =>
  createRow(db, m, { attributes, relationships: {} }, ctx);

describe('writes prepared per shape', () => {
  it('computes a $defaultFn value for every row', async () => {
    const rows = [await create({ name: 'a' }), await create({ name: 'b' }), await create({ name: 'c' })];
    expect(new Set(rows.map((row) => row.token)).size).toBe(3);
    expect(rows.map((row) => row.name)).toEqual(['a', 'b', 'c']);
  });

  it('writes each shape with its own columns, and a server-set value of SQL as SQL', async () => {
    const noted = await create({ name: 'd', note: 'first' });
    const plain = await create({ name: 'e' });
    const again = await create({ name: 'f', note: 'second' });
    expect([noted.note, plain.note, again.note]).toEqual(['first', null, 'second']);
    const upper = table(() => ({ note: sql`upper(${'shouted'})` }));
    expect((await create({ name: 'g' }, upper)).note).toBe('SHOUTED');
    expect((await create({ name: 'h' }, upper)).note).toBe('SHOUTED');
  });

  it('writes a null as NULL, the first time and once the shape is prepared', async () => {
    const m: WriteTable = {
      type: 'flags',
      table: flags,
      id: flags.id,
      attributes: { name: flags.name, meta: flags.meta, done: flags.done },
    };
    const write = (attributes: Record<string, unknown>) => createRow(db, m, { attributes, relationships: {} }, ctx);
    for (const name of ['first', 'second', 'third']) {
      const row = await write({ name, meta: null, done: null });
      expect([row.meta, row.done]).toEqual([null, null]);
    }
    expect((await write({ name: 'set', meta: { a: 1 }, done: true })).done).toBe(true);
    const stored = client.prepare('select name, meta, done, typeof(meta) as t from flags order by id').all();
    expect(stored).toEqual([
      { name: 'first', meta: null, done: null, t: 'null' },
      { name: 'second', meta: null, done: null, t: 'null' },
      { name: 'third', meta: null, done: null, t: 'null' },
      { name: 'set', meta: '{"a":1}', done: 1, t: 'text' },
    ]);
  });
});
