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
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import { type Context, type FilterValue, JsonApi } from 'jsonapi-gen';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type OpenDatabase } from '../../examples/blog/db.js';
import type { Resources } from '../../examples/blog/generated/index.js';
import { PrismaClient as MysqlClient } from '../../examples/blog/prisma/generated/mysql/client.js';
import { PrismaClient as PostgresClient } from '../../examples/blog/prisma/generated/postgresql/client.js';
import { PrismaClient as SqliteClient } from '../../examples/blog/prisma/generated/sqlite/client.js';
import { seed } from '../../examples/blog/seed.js';
import { createStore } from '../../examples/blog/store.js';
import { defineModelStore, defineStore } from '../../integrations/prisma/store.js';
import { clientFor, likeText } from '../../integrations/prisma/index.js';
import { createMysqlDatabase, createPostgresDatabase } from '../support/databases.js';
import { CURSOR_PATHS, MISSING, PATHS, apiOf, read, sameCursorPages } from '../support/store-reads.js';

/** The generated clients have this shape. */
type Client = SqliteClient;

/** The demo's resources on Prisma: the mapping a user of the integration writes. */
function prismaStore(prisma: Client, provider: 'sqlite' | 'postgresql' | 'mysql') {
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
          // As the demo's Kysely search: the title contains the term, case-insensitively (on
          // MySQL, whose title column is case-sensitive and where Prisma has no `mode`, by ids).
          search: async (value: FilterValue, ctx: Context) => {
            const terms = [value].flat();
            if (provider !== 'mysql')
              return {
                OR: terms.map((term) => ({
                  title: { contains: term, ...(provider === 'postgresql' && { mode: 'insensitive' }) },
                })),
              };
            const rows = await clientFor(prisma, ctx).$queryRawUnsafe<Array<{ id: number }>>(
              `select id from articles where ${terms.map(() => "lower(title) like ? escape '\\\\'").join(' or ') || '1 = 0'}`,
              ...terms.map((term) => likeText(term.toLowerCase(), 'contains')),
            );
            return { id: { in: rows.map((row) => row.id) } };
          },
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
      events: { model: 'outboxEntry' },
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

interface Served {
  prisma: JsonApi;
  kysely: JsonApi;
  /** Prisma queries run since the last reset. */
  queries: string[];
}

/** The same database read through both stores: Kysely's and Prisma's. */
async function serve(
  dialect: 'sqlite' | 'postgres' | 'mysql',
  cleanups: Array<() => Promise<void> | void>,
): Promise<Served> {
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
  } else if (dialect === 'mysql') {
    const created = await createMysqlDatabase();
    cleanups.push(() => created.drop());
    database = openDatabase({ databaseUrl: created.url });
    const url = new URL(created.url);
    const adapter = new PrismaMariaDb({
      host: url.hostname,
      port: Number(url.port),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1),
    });
    prisma = new MysqlClient({ adapter, log: [...log] }) as unknown as Client;
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
    prisma: apiOf(prismaStore(prisma, dialect === 'sqlite' ? 'sqlite' : dialect === 'mysql' ? 'mysql' : 'postgresql')),
    kysely: apiOf(createStore(database.db)),
    queries,
  };
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)(
  'the Prisma store reads as the Kysely store on %s',
  (dialect) => {
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

    it.each(CURSOR_PATHS)('follows the cursor pages of %s to the end, as Kysely does', (first) =>
      sameCursorPages(served.kysely, served.prisma, first),
    );

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
  },
);

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
