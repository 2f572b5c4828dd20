/**
 * The Prisma store's reads against the Kysely store's, over the same database: the demo's
 * schema served twice (Prisma data layers, Kysely data layers), every read of the query
 * language sent to both, the two documents compared byte for byte; on SQLite and PostgreSQL.
 * And the number of Prisma queries of an include, which does not grow with the page size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { type FilterValue, JsonApi } from 'jsonapi-gen';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import type { Resources } from '../../examples/blog/generated/index.js';
import { PrismaClient as PostgresClient } from '../../examples/blog/prisma/generated/postgresql/client.js';
import { PrismaClient as SqliteClient } from '../../examples/blog/prisma/generated/sqlite/client.js';
import * as schema from '../../examples/blog/schema.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { defineModelStore, defineStore } from '../../integrations/prisma/store.js';
import { createPostgresDatabase } from '../support/databases.js';

/** Both generated clients have this shape. */
type Client = SqliteClient;

/** The demo's resources on Prisma: the mapping a user of the integration writes. */
function prismaStore(prisma: Client, provider: 'sqlite' | 'postgresql') {
  return defineStore<Client, Resources>(
    prisma,
    {
      people: {
        model: 'person',
        nullable: ['email'],
        relationships: { articles: { field: 'articles', model: 'article', foreignKey: 'authorId' } },
      },
      articles: {
        model: 'article',
        nullable: ['body'],
        version: 'version',
        relationships: {
          author: { field: 'author', foreignKey: 'authorId' },
          comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },
          tags: { field: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId', relation: 'tag' } },
        },
        filters: {
          // As the demo's Kysely search: the title contains the term, case-insensitively.
          search: (value: FilterValue) => ({
            OR: [value].flat().map((term) => ({
              title: { contains: term, ...(provider === 'postgresql' && { mode: 'insensitive' }) },
            })),
          }),
        },
        policy: (ability, article, ctx) =>
          ability === 'update' || ability === 'delete' ? String(article.authorId) === ctx.getAttribute('user') : true,
      },
      comments: {
        model: 'comment',
        relationships: {
          author: { field: 'author', foreignKey: 'authorId' },
          article: { field: 'article', foreignKey: 'articleId' },
        },
      },
      tags: {
        model: 'tag',
        relationships: {
          articles: {
            field: 'articles',
            through: { model: 'articleTag', from: 'tagId', to: 'articleId', relation: 'article' },
          },
        },
      },
    },
    { provider },
  );
}

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
  prisma: JsonApi;
  kysely: JsonApi;
  /** Prisma queries run since the last reset. */
  queries: string[];
}

/** The same database read through both stores: Kysely's and Prisma's. */
async function serve(dialect: 'sqlite' | 'postgres', cleanups: Array<() => Promise<void> | void>): Promise<Served> {
  let database: OpenDatabase;
  let prisma: Client;
  const queries: string[] = [];
  const log = [{ emit: 'event', level: 'query' }] as const;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'jsonapi-gen-prisma-reads-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'blog.sqlite');
    database = openDatabase({ file });
    prisma = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}` }), log: [...log] });
  } else {
    const created = await createPostgresDatabase();
    cleanups.push(() => created.drop());
    database = openDatabase({ databaseUrl: created.url });
    prisma = new PostgresClient({
      adapter: new PrismaPg({ connectionString: created.url }),
      log: [...log],
    }) as unknown as Client;
  }
  cleanups.unshift(() => database.close());
  cleanups.unshift(() => prisma.$disconnect());
  await migrate(database.db, database.dialect);
  await seed(database.db, 60);
  // Comments per article from 2 to 5, so that counts tell articles apart.
  await sql`delete from comments where id % 4 = 0 or id % 9 = 0`.execute(database.db);
  (prisma as unknown as { $on(event: 'query', f: (e: { query: string }) => void): void }).$on('query', (e) =>
    queries.push(e.query),
  );
  return {
    prisma: apiOf(prismaStore(prisma, dialect === 'sqlite' ? 'sqlite' : 'postgresql')),
    kysely: apiOf(createStore(database.db)),
    queries,
  };
}

describe.each(['sqlite', 'postgres'] as const)('the Prisma store reads as the Kysely store on %s', (dialect) => {
  let served: Served;
  const cleanups: Array<() => Promise<void> | void> = [];
  beforeAll(async () => {
    served = await serve(dialect, cleanups);
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it.each(PATHS)('GET %s', async (path) => {
    const [expected, actual] = [await read(served.kysely, path), await read(served.prisma, path)];
    expect(actual[1]).toBe(expected[1]);
    // Real reads, not the same error twice.
    expect(actual[0], actual[1]).toBe(MISSING.includes(path) ? 404 : 200);
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
      const actual: [number, string] = await read(served.prisma, path);
      expect(actual[1]).toBe(expected[1]);
      expect(actual[0], actual[1]).toBe(200);
      const next: string | null = (JSON.parse(actual[1]) as { links: { next?: string | null } }).links.next ?? null;
      path = next === null ? null : next.replace('http://localhost', '');
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
  });

  it('runs as many queries for an include of 50 articles as of 20', async () => {
    const count = async (limit: number) => {
      served.queries.length = 0;
      const [status] = await read(
        served.prisma,
        `/articles?page[limit]=${limit}&include=author,comments.author,tags&withCount=comments,tags`,
      );
      expect(status).toBe(200);
      return served.queries.length;
    };
    const twenty = await count(20);
    expect(twenty).toBeGreaterThan(0);
    expect(await count(50)).toBe(twenty);
  });
});

describe("the mapping's types", () => {
  it("refuses at compile time a model or field the client's types do not have (tsc checks this file)", () => {
    const sqlite = { provider: 'sqlite' } as const;
    // One call per line, so that each error stands on the line its directive names.
    // prettier-ignore
    const mappings = (prisma: Client) => [
      // @ts-expect-error: the client has no model `articel`
      defineModelStore(prisma, { articles: { model: 'articel' } }, sqlite),
      // @ts-expect-error: `versoin` is no field of Article
      defineModelStore(prisma, { articles: { model: 'article', version: 'versoin' } }, sqlite),
      // @ts-expect-error: `authorID` is no field of Article
      defineModelStore(prisma, { articles: { model: 'article', relationships: { author: { field: 'author', foreignKey: 'authorID' } } } }, sqlite),
      // @ts-expect-error: `postId` is no field of Comment
      defineModelStore(prisma, { articles: { model: 'article', relationships: { comments: { field: 'comments', model: 'comment', foreignKey: 'postId' } } } }, sqlite),
      // @ts-expect-error: `created` names no field of Article
      defineModelStore(prisma, { articles: { model: 'article', fields: { createdAt: 'created' } } }, sqlite),
      defineModelStore(prisma, { articles: { model: 'article', version: 'version', fields: { created: 'createdAt' } } }, sqlite),
    ];
    expect(mappings).toBeTypeOf('function');
  });
});
