/**
 * The Drizzle store's reads against the Kysely store's, over the same seeded database: the
 * demo's schema served twice (Drizzle data layers of examples/blog/drizzle-store.ts, Kysely
 * data layers of store.ts), every read of the query language sent to both, the two documents
 * compared byte for byte, scoped and not; on SQLite and PostgreSQL. And the statements of the
 * benchmark's routes (a-g), as many as the Kysely store runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { drizzle as postgresDrizzle } from 'drizzle-orm/node-postgres';
import { JsonApi } from 'jsonapi-gen';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../bench/routes.js';
import { migrate, openDatabase } from '../../examples/blog/db.js';
import { createDrizzleStore } from '../../examples/blog/drizzle-store.js';
import * as schema from '../../examples/blog/schema.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { createPostgresDatabase } from '../support/databases.js';

/** Writes are not this file's: registration takes them, a read never calls them. */
const notYet = () => {
  throw new Error('not yet');
};
const WRITES = {
  create: notYet,
  update: notYet,
  delete: notYet,
  addToRelationship: notYet,
  removeFromRelationship: notYet,
};

function apiOf(layers: Record<'people' | 'articles' | 'comments' | 'tags', object>): JsonApi {
  return new JsonApi()
    .resource({ ...schema.people, ...WRITES, ...layers.people })
    .resource({ ...schema.articles, ...WRITES, ...layers.articles })
    .resource({ ...schema.comments, ...WRITES, ...layers.comments })
    .resource({ ...schema.tags, ...WRITES, ...layers.tags });
}

async function read(api: JsonApi, path: string, user = '1'): Promise<[number, string]> {
  const response = await api.fetch(new Request(`http://localhost${path}`), { attributes: { user } });
  return [response.status, await response.text()];
}

const t = encodeURIComponent('2024-01-03T12:00:00.000Z');
const u = encodeURIComponent('2024-01-05T04:00:00.000Z');

/** Every filter operator and path of the demo, groups, counts, sorts, pages, includes, counts of relationships. */
const PATHS = [
  '/articles',
  '/articles?filter[title]=Joins in practice, part 6',
  '/articles?filter[title][contains]=practice, part 1',
  // Case-sensitive text operators: `joins` is not `Joins` (SQLite's LIKE would say it is).
  '/articles?filter[title][contains]=joins',
  '/articles?filter[title][contains]=Joins',
  '/articles?filter[title][startsWith]=Types',
  '/articles?filter[title][startsWith]=types',
  '/articles?filter[title][endsWith]=part 1',
  '/articles?filter[title][contains]=%25 part 1',
  '/articles?filter[title][contains]=part_1',
  '/articles?filter[author]=3',
  '/articles?filter[author]=3,4',
  '/articles?filter[status]=draft',
  '/articles?filter[status][ne]=draft',
  '/articles?filter[status][in]=draft,published',
  '/articles?filter[status][nin]=published',
  `/articles?filter[createdAt]=${encodeURIComponent('2024-01-05T09:00:00.000Z')}`,
  `/articles?filter[createdAt][ne]=${encodeURIComponent('2024-01-05T09:00:00.000Z')}`,
  `/articles?filter[createdAt][lt]=${t}`,
  `/articles?filter[createdAt][lte]=${t}`,
  `/articles?filter[createdAt][gt]=${t}`,
  `/articles?filter[createdAt][gte]=${t}&filter[updatedAt][lt]=${u}`,
  `/articles?filter[updatedAt][gte]=${u}&sort=-updatedAt`,
  '/articles?filter[author.name]=Ada Lovelace',
  '/articles?filter[author.name][contains]=Tur',
  '/articles?filter[author.name][contains]=tur',
  '/articles?filter[tags.name]=json',
  '/articles?filter[tags.name][in]=json,sqlite',
  '/articles?filter[commentCount][gte]=4',
  '/articles?filter[commentCount]=5',
  '/articles?filter[commentCount][lt]=4',
  '/articles?filter[commentCount][ne]=4',
  '/articles?filter[commentCount][lte]=3',
  '/articles?filter[tagCount]=0',
  '/articles?filter[tagCount][gt]=0',
  '/articles?filter[tagCount][gt]=1',
  '/articles?filter[tagCount][lt]=2',
  '/articles?filter[search]=JOINS',
  '/articles?filter[or][0][status]=draft&filter[or][1][commentCount][gt]=4',
  '/articles?filter[not][title][contains]=Joins',
  '/articles?filter[not][tags.name]=json',
  '/articles?filter[not][or][0][tags.name]=json&filter[not][or][1][tagCount][gte]=2',
  '/articles?filter[or][0][search]=types&filter[or][1][author.name]=Ada Lovelace',
  `/articles?filter[and][0][createdAt][gte]=${t}&filter[and][1][or][0][title][contains]=a&filter[and][1][or][1][not][status]=draft`,
  '/articles?sort=title',
  '/articles?sort=-title&page[limit]=50',
  '/articles?sort=author.name,-createdAt&page[limit]=50',
  '/articles?sort=-author.name&page[offset]=10&page[limit]=15',
  '/articles?sort=-commentCount&page[limit]=50',
  '/articles?sort=tagCount,title&page[limit]=50',
  '/articles?page[offset]=20&page[limit]=20',
  '/articles?page[offset]=55',
  '/articles?include=author,comments.author,tags&page[limit]=10',
  '/articles?withCount=comments,tags&page[limit]=30',
  '/articles?fields[articles]=title,author&include=author&filter[author]=2',
  '/articles/1',
  '/articles/2?include=author,tags,comments.author&withCount=comments,tags',
  '/articles/999',
  '/articles/abc',
  '/articles/3/author',
  '/articles/3/comments?include=author',
  '/articles/3/tags',
  '/articles/7/tags?withCount=articles',
  '/articles/3/relationships/tags',
  '/articles/3/relationships/author',
  '/comments/5/article',
  '/comments?filter[article]=4&include=article.author',
  '/comments?filter[author]=2&sort=-createdAt',
  '/people',
  '/people?sort=-articleCount&withCount=articles',
  '/people?filter[articleCount][gt]=12',
  '/people?filter[name]=Ada Lovelace&include=articles.tags',
  '/people/2/articles?sort=-commentCount&filter[status]=published',
  '/tags?include=articles&withCount=articles',
  '/tags/1/articles?filter[commentCount][gte]=5',
];

/** The paths of PATHS that name no resource. */
const MISSING = ['/articles/999', '/articles/abc'];

interface Served {
  drizzle: JsonApi;
  kysely: JsonApi;
  drizzleScoped: JsonApi;
  kyselyScoped: JsonApi;
  /** Statements each store ran since the last reset. */
  statements: { drizzle: number; kysely: number };
}

/** The same database read through both stores. */
async function serve(dialect: 'sqlite' | 'postgres', cleanups: Array<() => Promise<void> | void>): Promise<Served> {
  const statements = { drizzle: 0, kysely: 0 };
  const logger = { logQuery: () => void statements.drizzle++ };
  const onStatement = () => void statements.kysely++;
  let database: ReturnType<typeof openDatabase>;
  let db: object;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-drizzle-reads-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'blog.sqlite');
    database = openDatabase({ file, onStatement });
    const connection = new SQLite(file);
    cleanups.unshift(() => void connection.close());
    db = sqliteDrizzle(connection, { logger });
  } else {
    const created = await createPostgresDatabase();
    cleanups.push(() => created.drop());
    database = openDatabase({ databaseUrl: created.url, onStatement });
    const pool = new pg.Pool({ connectionString: created.url, options: '-c TimeZone=UTC' });
    cleanups.unshift(() => pool.end());
    db = postgresDrizzle(pool, { logger });
  }
  cleanups.unshift(() => database.close());
  await migrate(database.db, database.dialect);
  await seed(database.db, 60);
  // Comments per article from 2 to 5, so that counts tell articles apart.
  await sql`delete from comments where id % 4 = 0 or id % 9 = 0`.execute(database.db);
  const drizzleDialect = dialect === 'sqlite' ? 'sqlite' : 'postgresql';
  return {
    drizzle: apiOf(createDrizzleStore(db, drizzleDialect)),
    kysely: apiOf(createStore(database.db)),
    drizzleScoped: apiOf(createDrizzleStore(db, drizzleDialect, { scoped: true })),
    kyselyScoped: apiOf(createStore(database.db, { scoped: true })),
    statements,
  };
}

describe.each(['sqlite', 'postgres'] as const)('the Drizzle store reads as the Kysely store on %s', (dialect) => {
  let served: Served;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeAll(async () => {
    served = await serve(dialect, cleanups);
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it.each(PATHS)('GET %s', async (path) => {
    const [expected, actual] = [await read(served.kysely, path), await read(served.drizzle, path)];
    expect(actual[1]).toBe(expected[1]);
    // Real reads, not the same error twice.
    expect(actual[0], actual[1]).toBe(MISSING.includes(path) ? 404 : 200);
  });

  it.each(PATHS)('GET %s with row-level scopes, anonymous and signed in', async (path) => {
    for (const user of ['', '2']) {
      const expected = await read(served.kyselyScoped, path, user);
      const actual = await read(served.drizzleScoped, path, user);
      expect(actual[1]).toBe(expected[1]);
      expect(actual[0]).toBe(expected[0]);
    }
  });

  it.each([
    '/articles?page[size]=7',
    '/articles?page[size]=9&sort=-commentCount',
    '/articles?page[size]=8&sort=title&filter[status]=published',
    '/comments?page[size]=40',
  ])('follows the cursor pages of %s to the end, as Kysely does', async (first) => {
    let path: string | null = first;
    let pages = 0;
    while (path !== null) {
      const expected: [number, string] = await read(served.kysely, path);
      const actual: [number, string] = await read(served.drizzle, path);
      expect(actual[1]).toBe(expected[1]);
      expect(actual[0], actual[1]).toBe(200);
      const next: string | null = (JSON.parse(actual[1]) as { links: { next?: string | null } }).links.next ?? null;
      path = next === null ? null : next.replace('http://localhost', '');
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
  });

  it.each(ROUTES.filter((route) => route.method === 'GET').map((route) => [route.name, route.path]))(
    'runs as many statements as the Kysely store on route %s (%s)',
    async (_name, path) => {
      const count = async (api: JsonApi, store: 'drizzle' | 'kysely') => {
        served.statements[store] = 0;
        const [status] = await read(api, path);
        expect(status).toBe(200);
        return served.statements[store];
      };
      const kysely = await count(served.kysely, 'kysely');
      expect(kysely).toBeGreaterThan(0);
      expect(await count(served.drizzle, 'drizzle')).toBe(kysely);
    },
  );
});
