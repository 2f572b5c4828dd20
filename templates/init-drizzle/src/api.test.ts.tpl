/**
 * `npm test` builds src/generated, then runs this. Commit src/__snapshots__/ with src/generated/:
 * after a schema change, `npx vitest run -u` updates the snapshot, and its diff in review shows
 * what the change did to the API.
 */
import { is } from 'drizzle-orm';
import { SQLiteTable, getTableConfig } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, seed } from './db.js';
import { createApi, openapi } from './generated/index.js';
import { createStore } from './store.js';
import * as tables from './tables.js';

const JSONAPI = 'application/vnd.api+json';

describe('{{name}}', () => {
  it('serves GET /books from a fresh database', async () => {
    const db = openDatabase(':memory:');
    try {
      migrate(db);
      seed(db);
      const api = createApi(createStore(db));
      const response = await api.fetch(new Request('http://localhost/books?include=author', { headers: { accept: JSONAPI } }));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(JSONAPI);
      const body = (await response.json()) as { data: Array<{ attributes: { title: string } }>; included: Array<{ type: string }> };
      expect(body.data.map((book) => book.attributes.title)).toEqual(['A Wizard of Earthsea', 'The Left Hand of Darkness']);
      expect(body.included.map((resource) => resource.type)).toEqual(['authors']);
    } finally {
      db.$client.close();
    }
  });

  // The migrations make the tables and src/tables.ts declares them: a change to one without the other fails here.
  it('declares in src/tables.ts the columns the migrations of drizzle/ make', () => {
    const db = openDatabase(':memory:');
    try {
      migrate(db);
      const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
      for (const table of Object.values(tables).filter((value) => is(value, SQLiteTable))) {
        const { name, columns } = getTableConfig(table);
        const made = db.$client
          .prepare('select name, lower(type) as type, "notnull" as "notNull" from pragma_table_info(?)')
          .all(name) as Array<{ name: string; type: string; notNull: number }>;
        const declared = columns.map((column) => ({ name: column.name, type: column.getSQLType(), notNull: column.notNull ? 1 : 0 }));
        expect(made.sort(byName), name).toEqual(declared.sort(byName));
      }
    } finally {
      db.$client.close();
    }
  });

  it('generates the API of its snapshot (src/__snapshots__)', () => {
    expect(openapi).toMatchSnapshot();
  });
});
