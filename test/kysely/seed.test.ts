import { afterAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import { seed, seedCounts } from '../../examples/blog/seed.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { DIALECTS } from './harness.js';

const TABLES = ['people', 'tags', 'articles', 'article_tags', 'comments'] as const;

async function dump(database: OpenDatabase) {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const rows = await database.db.selectFrom(table).selectAll().execute();
    out[table] = rows
      .map((row) =>
        Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
      )
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

describe('seed', () => {
  it('is deterministic (two fresh databases hold the same rows)', async () => {
    const a = openDatabase();
    const b = openDatabase();
    try {
      for (const d of [a, b]) {
        await migrate(d.db, d.dialect);
        await seed(d.db, 40);
      }
      expect(await dump(a)).toEqual(await dump(b));
      expect(await seed(a.db, 40)).toEqual({ people: 0, articles: 0, comments: 0, tags: 0 }); // idempotent
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('gives the benchmark scale for 1,000 articles', () => {
    expect(seedCounts(1000)).toEqual({ people: 20, articles: 1000, comments: 5000, tags: 12 });
  });

  describe.each(DIALECTS)('on %s', (dialect) => {
    let pg: TestDatabase | undefined;
    let database: OpenDatabase | undefined;
    afterAll(async () => {
      await database?.close();
      await pg?.drop();
    });

    it('creates 1,000 articles, 5,000 comments, 20 people and 12 tags', async () => {
      if (dialect === 'postgres') pg = await createPostgresDatabase();
      database = openDatabase({ databaseUrl: pg?.url });
      await migrate(database.db, database.dialect);
      await migrate(database.db, database.dialect); // idempotent
      expect(await seed(database.db, 1000)).toEqual(seedCounts(1000));
      const counts: Record<string, number> = {};
      for (const table of ['people', 'articles', 'comments', 'tags'] as const) {
        counts[table] = Number(
          (
            await database.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      }
      expect(counts).toEqual({ people: 20, articles: 1000, comments: 5000, tags: 12 });
    });
  });
});
