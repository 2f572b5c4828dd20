/**
 * The database: an SQLite file ($DATABASE, default data.sqlite) through Drizzle. Its tables are
 * made by the SQL migrations of drizzle/, which drizzle-orm's migrator runs; src/tables.ts
 * declares them for Drizzle.
 */
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as runMigrations } from 'drizzle-orm/better-sqlite3/migrator';
import { authors, books } from './tables.js';

/** The SQLite file. */
export const DATABASE = process.env.DATABASE ?? 'data.sqlite';

export type Database = BetterSQLite3Database & { $client: SQLite.Database };

export function openDatabase(file = DATABASE): Database {
  // Another connection's write (the sqlite3 shell, a second server) is waited for (5 s), not an error.
  const client = new SQLite(file, { timeout: 5000 });
  client.pragma('journal_mode = WAL');
  client.pragma('foreign_keys = ON');
  return drizzle({ client });
}

/**
 * Brings the tables up to date: drizzle-orm's migrator runs the migrations that
 * drizzle/meta/_journal.json lists and this database has not run yet, in order, and records
 * them (table __drizzle_migrations).
 */
export function migrate(db: Database): void {
  runMigrations(db, { migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)) });
}

/** A first author with two books, in a database without authors. On better-sqlite3, `.get()` and `.run()` run at once. */
export function seed(db: Database): void {
  if (db.select({ id: authors.id }).from(authors).limit(1).get() !== undefined) return;
  const author = db.insert(authors).values({ name: 'Ursula K. Le Guin' }).returning({ id: authors.id }).get();
  db.insert(books)
    .values([
      { title: 'A Wizard of Earthsea', year: 1968, authorId: author.id },
      { title: 'The Left Hand of Darkness', year: 1969, authorId: author.id },
    ])
    .run();
}
