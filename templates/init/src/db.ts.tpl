/** The database: an SQLite file ($DATABASE, default data.sqlite) through Kysely, and its migrations. */
import SQLite from 'better-sqlite3';
import { type Generated, type Kysely, Migrator } from 'kysely';
import { sqliteKysely } from '@jsonapi-gen/kysely';
import { migrations } from './migrations/index.js';

export interface Database {
  authors: { id: Generated<number>; name: string };
  books: { id: Generated<number>; title: string; year: number | null; author_id: number };
}

export function openDatabase(file = process.env.DATABASE ?? 'data.sqlite'): Kysely<Database> {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // Another connection's write (the sqlite3 shell, a second server) is waited for, not an error.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Each distinct statement is prepared once (Kysely would prepare every query anew), and with
  // the direct runner the store's reads outside transactions, and its transactions, run on
  // SQLite directly, without Kysely's per-query layers. To use Kysely's `log` or plugins, drop
  // `runner: 'direct'` (they are refused with it): then everything goes through Kysely.
  return sqliteKysely<Database>(sqlite, { runner: 'direct' });
}

/**
 * Brings the tables up to date: Kysely's `Migrator` runs the migrations of src/migrations/ that
 * this database has not run yet, in order, and records them (tables kysely_migration*).
 */
export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** A first author with two books, in a database without authors. */
export async function seed(db: Kysely<Database>): Promise<void> {
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
