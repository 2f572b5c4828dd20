/**
 * The tables of drizzle/*.sql as Drizzle tables, for the store (src/store.ts) to read and write.
 * The SQL migrations make the tables (`npm start` runs them): when you change a table, add a
 * migration and change its table here to match. Properties are camelCase, columns snake_case.
 */
import { relations } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const authors = sqliteTable('authors', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  /** Added one to by every write; reads carry it in their ETag, writes honour If-Match. */
  version: integer('version').notNull().default(1),
});

export const books = sqliteTable(
  'books',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    title: text('title').notNull(),
    year: integer('year'),
    authorId: integer('author_id')
      .notNull()
      .references(() => authors.id, { onDelete: 'cascade' }),
    version: integer('version').notNull().default(1),
  },
  (t) => [index('books_author_id').on(t.authorId)],
);

/** Idempotency-Keys of POST requests and their responses (drizzleIdempotency in src/server.ts). */
export const idempotencyKeys = sqliteTable(
  'jsonapi_idempotency_keys',
  {
    key: text('key').primaryKey(),
    fingerprint: text('fingerprint').notNull(),
    /** Milliseconds since the epoch. */
    createdAt: integer('created_at').notNull(),
    status: integer('status'),
    response: text('response'),
    holder: text('holder'),
    written: integer('written').notNull().default(0),
  },
  (t) => [index('jsonapi_idempotency_keys_created_at_index').on(t.createdAt)],
);

// The relationships of src/schema.ts follow these: `authors.books` and `books.author`.
export const authorsRelations = relations(authors, ({ many }) => ({ books: many(books) }));
export const booksRelations = relations(books, ({ one }) => ({
  author: one(authors, { fields: [books.authorId], references: [authors.id] }),
}));
