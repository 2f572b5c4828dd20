/** The data layers of src/schema.ts: each resource backed by a table of src/tables.ts (@jsonapi-gen/drizzle). */
import { defineStore } from '@jsonapi-gen/drizzle';
import type { Database } from './db.js';
import type { Resources } from './generated/index.js';
import * as tables from './tables.js';

/**
 * Checked against the tables and the schema's generated resource types: a misspelt column, an
 * attribute without a fitting column or a relationship without its relations() entry does not
 * compile, at its line. The relationships follow the relations() of src/tables.ts.
 */
export function createStore(db: Database) {
  return defineStore<typeof tables, Resources>(
    db,
    tables,
    {
      // `version`: every write adds one; reads carry it in their ETag and writes honour If-Match.
      authors: { table: tables.authors, version: 'version' },
      books: { table: tables.books, version: 'version' },
    },
    { dialect: 'sqlite' },
  );
}
