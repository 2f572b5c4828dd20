/** The database: an SQLite file ($DATABASE, default data.sqlite) through Kysely. */
import SQLite from 'better-sqlite3';
import { type Generated, Kysely } from 'kysely';
import { sqliteDialect } from '@jsonapi-gen/kysely';

export interface Database {
  authors: { id: Generated<number>; name: string };
  books: { id: Generated<number>; title: string; year: number | null; author_id: number };
}

export function openDatabase(file = process.env.DATABASE ?? 'data.sqlite'): Kysely<Database> {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  // Each distinct statement is prepared once, and the API's reads outside transactions run on
  // SQLite directly (Kysely would prepare every query anew and wrap each in its own layers).
  return new Kysely<Database>({ dialect: sqliteDialect(sqlite) });
}

/** Creates the tables when missing, and a first author with two books in an empty database. */
export async function migrate(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createTable('authors')
    .ifNotExists()
    .addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement())
    .addColumn('name', 'text', (column) => column.notNull())
    .execute();
  await db.schema
    .createTable('books')
    .ifNotExists()
    .addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement())
    .addColumn('title', 'text', (column) => column.notNull())
    .addColumn('year', 'integer')
    .addColumn('author_id', 'integer', (column) => column.notNull().references('authors.id').onDelete('cascade'))
    .execute();
  const existing = await db.selectFrom('authors').select('id').limit(1).executeTakeFirst();
  if (existing !== undefined) return;
  const author = await db.insertInto('authors').values({ name: 'Ursula K. Le Guin' }).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('books')
    .values([
      { title: 'A Wizard of Earthsea', year: 1968, author_id: author.id },
      { title: 'The Left Hand of Darkness', year: 1969, author_id: author.id },
    ])
    .execute();
}
