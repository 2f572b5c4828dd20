/**
 * Conditions the Prisma store works out as lists of ids (a count other than existence, and on
 * SQLite a case-sensitive text operator) on a large table: the demo's route g on 1000 articles
 * answers as the Kysely store does, on SQLite and PostgreSQL; a list past what the database
 * binds in one statement is a 400 naming the filter parameter, not a 500.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { JsonApi } from 'jsonapi-gen';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import { createPrismaStore, openPrisma } from '../../examples/blog/prisma-store.js';
import * as schema from '../../examples/blog/schema.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { SQLITE_MAX_BIND_VALUES } from '../../integrations/prisma/sqlite-adapter.js';
import { createPostgresDatabase } from '../support/databases.js';

function apiOf(layers: Record<'people' | 'articles' | 'comments' | 'tags', object>): JsonApi {
  return new JsonApi()
    .resource({ ...schema.people, ...layers.people })
    .resource({ ...schema.articles, ...layers.articles })
    .resource({ ...schema.comments, ...layers.comments })
    .resource({ ...schema.tags, ...layers.tags });
}

async function read(api: JsonApi, path: string): Promise<[number, string]> {
  const response = await api.fetch(new Request(`http://localhost${path}`));
  return [response.status, await response.text()];
}

/** The demo's route g: a boolean group of a text operator, two paths and a count, on one page. */
const ROUTE_G =
  '/articles?filter[or][0][title][contains]=Caching&filter[or][1][author.name]=Ada%20Lovelace&filter[or][2][tags.name]=typescript&filter[commentCount][gte]=5&page[limit]=20';

describe.each(['sqlite', 'postgres'] as const)('lists of ids on %s', (dialect) => {
  let database: OpenDatabase;
  let prisma: JsonApi;
  let kysely: JsonApi;
  const cleanups: Array<() => unknown> = [];
  beforeAll(async () => {
    let where: { file: string } | { databaseUrl: string };
    if (dialect === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-prisma-lists-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      where = { file: join(dir, 'blog.sqlite') };
    } else {
      const created = await createPostgresDatabase();
      cleanups.push(() => created.drop());
      where = { databaseUrl: created.url };
    }
    database = openDatabase(where);
    cleanups.unshift(() => database.close());
    await migrate(database.db, database.dialect);
    await seed(database.db, 1000);
    const client = openPrisma(where);
    cleanups.unshift(() => client.$disconnect());
    prisma = apiOf(createPrismaStore(client, dialect === 'sqlite' ? 'sqlite' : 'postgresql'));
    kysely = apiOf(createStore(database.db));
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('serves route g on 1000 articles as the Kysely store does', async () => {
    const expected = await read(kysely, ROUTE_G);
    const actual = await read(prisma, ROUTE_G);
    expect(actual[0], actual[1]).toBe(200);
    expect(actual[1]).toBe(expected[1]);
    expect(JSON.parse(actual[1]).data.length).toBeGreaterThan(0);
  });

  it('answers a list of ids past the bind limit with a 400 naming the filter parameter', async () => {
    // 33000 more articles with two comments each: `commentCount >= 2` holds for more ids than
    // one statement binds (32766, on both databases as Prisma binds them).
    const extra = SQLITE_MAX_BIND_VALUES + 234;
    if (dialect === 'sqlite') {
      await sql`insert into articles (title, body, status, author_id, created_at, updated_at, version)
        with recursive n(i) as (select 1 union all select i + 1 from n where i < ${extra})
        select 'Bulk ' || i, null, 'published', 1, '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z', 1 from n`.execute(
        database.db,
      );
    } else {
      await sql`insert into articles (title, body, status, author_id, created_at, updated_at, version)
        select 'Bulk ' || i, null, 'published', 1, '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z', 1
        from generate_series(1, ${extra}) as i`.execute(database.db);
    }
    await sql`insert into comments (body, article_id, author_id, created_at)
      select 'first', id, 1, created_at from articles where title like 'Bulk %'
      union all select 'second', id, 1, created_at from articles where title like 'Bulk %'`.execute(database.db);
    const [status, text] = await read(prisma, '/articles?filter[commentCount][gte]=2&page[limit]=5');
    expect(status, text).toBe(400);
    const [error] = JSON.parse(text).errors;
    expect(error.source).toEqual({ parameter: 'filter[commentCount][gte]' });
    expect(error.detail).toMatch(/filter\[commentCount\]\[gte\]/);
    if (dialect === 'sqlite') {
      const [textStatus, textBody] = await read(
        prisma,
        '/articles?filter[or][0][author]=2&filter[or][1][title][startsWith]=Bulk',
      );
      expect(textStatus, textBody).toBe(400);
      expect(JSON.parse(textBody).errors[0].source).toEqual({ parameter: 'filter[or][1][title][startsWith]' });
    }
  });
});

describe('the SQLite that better-sqlite3 bundles', () => {
  it(`binds ${SQLITE_MAX_BIND_VALUES} values in one statement and no more`, () => {
    const db = new SQLite(':memory:');
    const select = (n: number) => db.prepare(`select 1 where 1 in (${Array(n).fill('?').join(',')})`);
    expect(select(SQLITE_MAX_BIND_VALUES).get(...Array<number>(SQLITE_MAX_BIND_VALUES).fill(1))).toBeDefined();
    expect(() => select(SQLITE_MAX_BIND_VALUES + 1)).toThrow(/too many SQL variables/);
    db.close();
  });
});
