/**
 * `npm test` builds src/generated, then runs this. Commit src/__snapshots__/ with src/generated/:
 * after a schema change, `npx vitest run -u` updates the snapshot, and its diff in review shows
 * what the change did to the API.
 */
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, seed } from './db.js';
import { createApi, openapi } from './generated/index.js';
import { createStore } from './store.js';

const JSONAPI = 'application/vnd.api+json';

describe('{{name}}', () => {
  it('serves GET /books from a fresh database', async () => {
    const db = openDatabase(':memory:');
    try {
      migrate(db);
      await seed(db);
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

  it('generates the API of its snapshot (src/__snapshots__)', () => {
    expect(openapi).toMatchSnapshot();
  });
});
