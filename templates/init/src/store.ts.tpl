/** The data layers of src/schema.ts: each resource backed by its table (@jsonapi-gen/kysely). */
import type { Kysely } from 'kysely';
import { defineStore } from '@jsonapi-gen/kysely';
import type { Database } from './db.js';
import type { Resources } from './generated/index.js';

/** The mapping is checked against the schema's generated types and the database's: a misspelt column does not compile. */
export function createStore(db: Kysely<Database>) {
  return defineStore<Database, Resources>(db, {
    authors: {
      table: 'authors',
      relationships: { books: { type: 'toMany', table: 'books', foreignKey: 'author_id' } },
    },
    books: {
      table: 'books',
      columns: { authorId: 'author_id' },
      relationships: { author: { type: 'toOne', foreignKey: 'author_id', table: 'authors' } },
    },
  });
}
