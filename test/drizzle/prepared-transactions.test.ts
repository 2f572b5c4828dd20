/**
 * On PostgreSQL the Drizzle store's statements inside a request's transaction (which holds a
 * pool connection of its own) go out named per shape: the connection parses and plans a
 * create's insert once, and later transactions on it reuse the statement, with each write's
 * own values and its row read back by property name. Drizzle builds and compiles the statement
 * once per connection too, and a transaction's statements run on its own connection only.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import { type PgDialect, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { Context } from 'jsonapi-gen';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
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
/** Two connections, for transactions that are open at once. */
let pair: pg.Pool;

beforeAll(async () => {
  database = await createPostgresDatabase();
  // One connection: every transaction runs on it, so what it prepared is there for the next.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  pair = new pg.Pool({ connectionString: database.url, max: 2 });
  await pool.query('create table notes (id serial primary key, title text not null, word_count integer not null)');
});

beforeEach(async () => {
  await pool.query('truncate notes');
});

afterAll(async () => {
  await pool?.end();
  await pair?.end();
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

/** A request's context, whose unit of work a transaction is bound to. */
const contextOf = () => new Context(new Request('http://localhost/notes', { method: 'POST' }), {});

describe('statements in a PostgreSQL transaction', () => {
  it("compiles a create's insert once per connection, not in every transaction", async () => {
    // A connection of its own: what it has prepared is this test's alone.
    const own = new pg.Pool({ connectionString: database.url, max: 1 });
    onTestFinished(() => own.end());
    const db = drizzle({ client: own });
    // Drizzle's SQL compiler, as the database and its transactions share it (spied on, still run).
    const compile = vi.spyOn((db as unknown as { dialect: PgDialect }).dialect, 'sqlToQuery');
    const first = await createInTransaction(db, 'compiled once', 1);
    const compiledFirst = compile.mock.results.length;
    const second = await createInTransaction(db, 'compiled once, run twice', 2);
    expect(second.row).toMatchObject({ title: 'compiled once, run twice', wordCount: 2 });
    expect(second.row.id).not.toBe(first.row.id);
    // What the second transaction compiled is its begin, its commit and the test's own select: not the insert.
    const compiled = compile.mock.results.slice(compiledFirst).map((result) => (result.value as { sql: string }).sql);
    expect(compiled.some((text) => /^begin/i.test(text))).toBe(true);
    expect(compiled.filter((text) => /insert/i.test(text))).toEqual([]);
    compile.mockRestore();
  });

  it("runs a transaction's statements on its own connection while another transaction holds one", async () => {
    const db = drizzle({ client: pair });
    await createInTransaction(db, 'first on one connection', 1);
    // One transaction holds a connection open while the other writes on the second and rolls back.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = contextOf();
    const holding = withDrizzleTransaction(
      db,
      async () => {
        await createRow(db, table, { attributes: { title: 'held', wordCount: 7 }, relationships: {} }, holder);
        await held;
      },
      { context: holder },
    );
    const writer = contextOf();
    const rolledBack = withDrizzleTransaction(
      db,
      async () => {
        await createRow(db, table, { attributes: { title: 'rolled back', wordCount: 8 }, relationships: {} }, writer);
        throw new Error('roll back');
      },
      { context: writer },
    );
    await expect(rolledBack).rejects.toThrow('roll back');
    release();
    await holding;
    const { rows } = await pair.query("select title from notes where title in ('held', 'rolled back')");
    expect(rows).toEqual([{ title: 'held' }]);
  });

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
