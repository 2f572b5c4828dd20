/**
 * The database's migrations, in order, for Kysely's `Migrator` (src/db.ts). To change the
 * tables, add a file (`0002_book_isbn.ts`) and list it here; never edit one that has run.
 */
import type { Migration } from 'kysely';
import { authorsAndBooks } from './0001_authors_and_books.js';

export const migrations: Record<string, Migration> = {
  '0001_authors_and_books': authorsAndBooks,
};
