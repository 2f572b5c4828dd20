/** The first tables: authors, and their books. */
import type { Kysely, Migration } from 'kysely';

export const authorsAndBooks: Migration = {
  // A migration sees the database as it was then, not today's `Database` type.
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('authors')
      .addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement())
      .addColumn('name', 'text', (column) => column.notNull())
      .execute();
    await db.schema
      .createTable('books')
      .addColumn('id', 'integer', (column) => column.primaryKey().autoIncrement())
      .addColumn('title', 'text', (column) => column.notNull())
      .addColumn('year', 'integer')
      .addColumn('author_id', 'integer', (column) => column.notNull().references('authors.id').onDelete('cascade'))
      .execute();
    await db.schema.createIndex('books_author_id').on('books').column('author_id').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('books').execute();
    await db.schema.dropTable('authors').execute();
  },
};
