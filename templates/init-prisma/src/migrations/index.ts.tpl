/**
 * The database's migrations, in order, for Kysely's `Migrator` (src/db.ts). To change the
 * tables, add a file (`0003_book_isbn.ts`), list it here and change prisma/schema.prisma to
 * match; never edit one that has run.
 */
import type { Migration } from 'kysely';
import { authorsAndBooks } from './0001_authors_and_books.js';
import { idempotencyKeys } from './0002_idempotency_keys.js';

export const migrations: Record<string, Migration> = {
  '0001_authors_and_books': authorsAndBooks,
  '0002_idempotency_keys': idempotencyKeys,
};
