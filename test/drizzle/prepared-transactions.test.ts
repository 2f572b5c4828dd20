/**
 * On PostgreSQL the Drizzle store's statements inside a request's transaction (which holds a
 * pool connection of its own) go out named per shape: the connection parses and plans a
 * create's insert once, and later transactions on it reuse the statement, with each write's
 * own values and its row read back by property name.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { Context } from 'jsonapi-gen';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDrizzleTransaction } from '../../integrations/drizzle/transaction.js';
import { type WriteTable, createRow } from '../../integrations/drizzle/writes.js';
import { type TestDatabase, createPostgresDatabase } from '../support/databases.js';

const notes = pgTable('notes', {
  id: serial('id').primaryKey(),
  title: text('title').notNull(),
  wordCount: integer('word_count').notNull(),
});
const table: WriteTable = {
  type: 'notes',
  table: notes,
  id: notes.id,
  attributes: { title: notes.title, wordCount: notes.wordCount },
};

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createPostgresDatabase();
  // One connection: every transaction runs on it, so what it prepared is there for the next.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await pool.query('create table notes (id serial primary key, title text not null, word_count integer not null)');
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** Creates a note in a request's transaction; resolves with the row and the connection's prepared statements. */
async function createInTransaction(db: ReturnType<typeof drizzle>, title: string, wordCount: number) {
  const ctx = new Context(new Request('http://localhost/notes', { method: 'POST' }), {});
  return withDrizzleTransaction(
    db,
    async (tx) => {
      const row = await createRow(db, table, { attributes: { title, wordCount }, relationships: {} }, ctx);
      const prepared = await tx.execute<{ statement: string }>('select statement from pg_prepared_statements');
      return { row, statements: prepared.rows.map((r) => r.statement) };
    },
    { context: ctx },
  );
}

describe('statements in a PostgreSQL transaction', () => {
  it("prepares a create's insert once per connection and reuses it with each write's values", async () => {
    const db = drizzle({ client: pool });
    const first = await createInTransaction(db, 'first', 3);
    const second = await createInTransaction(db, 'second', 5);
    expect(first.row).toMatchObject({ title: 'first', wordCount: 3 });
    expect(second.row).toMatchObject({ title: 'second', wordCount: 5 });
    expect(second.row.id).not.toBe(first.row.id);
    const inserts = (statements: string[]) => statements.filter((s) => /^insert into "notes"/i.test(s));
    expect(inserts(first.statements)).toHaveLength(1);
    // The second transaction ran the statement the first prepared: still one.
    expect(inserts(second.statements)).toEqual(inserts(first.statements));
    const { rows } = await pool.query('select title, word_count from notes order by id');
    expect(rows).toEqual([
      { title: 'first', word_count: 3 },
      { title: 'second', word_count: 5 },
    ]);
  });
});
