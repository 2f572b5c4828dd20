/**
 * The blog's data layers on Prisma (`npm run demo -- --store prisma`): the resources of
 * `schema.ts` backed by the models of `prisma/schema.prisma` through `@jsonapi-gen/prisma`,
 * as `store.ts` backs them by the Kysely store: the same columns, relationships, `search`
 * filter, policy, version and server-set timestamps, and `scoped` for row-level reads.
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaMariaDb } from '@prisma/adapter-mariadb';
import { PrismaPg } from '@prisma/adapter-pg';
import type { Context, FilterValue } from 'jsonapi-gen';
import { clientFor, defineStore, likeText, sqliteAdapter } from '@jsonapi-gen/prisma';
import { SQLITE_BUSY_TIMEOUT_MS } from './db.js';
import type { Resources } from './generated/index.js';
import { PrismaClient as MysqlClient } from './prisma/generated/mysql/client.js';
import { PrismaClient as PostgresClient } from './prisma/generated/postgresql/client.js';
import { PrismaClient as SqliteClient } from './prisma/generated/sqlite/client.js';
import type { StoreOptions } from './store.js';

/** The demo's client: the generated clients have this shape (one per database). */
export type BlogPrisma = SqliteClient;

/** The databases the demo's Prisma clients are generated for. */
export type BlogProvider = 'sqlite' | 'postgresql' | 'mysql';

/** The database a `postgres://` or `mysql://` URL names, as Prisma's providers name them. */
export function providerOf(databaseUrl: string): Exclude<BlogProvider, 'sqlite'> {
  return /^(mysql|mariadb):/i.test(databaseUrl) ? 'mysql' : 'postgresql';
}

/** A Prisma client on MySQL or MariaDB (`@prisma/adapter-mariadb`, its own pool of 10). */
function mysqlClient(databaseUrl: string, log: Array<{ emit: 'event'; level: 'query' }>): BlogPrisma {
  const url = new URL(databaseUrl);
  // The adapter writes and reads \`datetime\` columns as UTC itself: no session time zone is needed.
  const adapter = new PrismaMariaDb({
    host: url.hostname,
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    connectionLimit: 10,
  });
  return new MysqlClient({ adapter, log }) as unknown as BlogPrisma;
}

/**
 * A Prisma client on the demo's database: the SQLite file (date-times bound as `…Z` text, as
 * the Kysely store and the seed write them; transactions that wait for the write lock; the
 * bind limit of the bundled SQLite) or the PostgreSQL URL. `onQuery` hears each SQL
 * statement the client runs (Prisma's `query` event), for counting them.
 *
 * @example
 * const prisma = openPrisma({ file: 'blog.sqlite' }, { onQuery: (sql) => console.log(sql) });
 */
export function openPrisma(
  where: { file: string } | { databaseUrl: string },
  options: { onQuery?: ((sql: string) => void) | undefined } = {},
): BlogPrisma {
  // Prisma emits `query` events only when its `log` option asks for them.
  const log = options.onQuery ? [{ emit: 'event' as const, level: 'query' as const }] : [];
  const prisma =
    'file' in where
      ? new SqliteClient({
          adapter: sqliteAdapter(
            new PrismaBetterSqlite3({ url: `file:${where.file}`, timeout: SQLITE_BUSY_TIMEOUT_MS }),
          ),
          log,
        })
      : providerOf(where.databaseUrl) === 'mysql'
        ? mysqlClient(where.databaseUrl, log)
        : // The generated clients differ only in the provider their adapter must name.
          (new PostgresClient({
            adapter: new PrismaPg({ connectionString: where.databaseUrl, max: 10, options: '-c TimeZone=UTC' }),
            log,
          }) as unknown as BlogPrisma);
  const onQuery = options.onQuery;
  if (onQuery)
    (prisma as unknown as { $on(event: 'query', listener: (e: { query: string }) => void): void }).$on('query', (e) =>
      onQuery(e.query),
    );
  return prisma;
}

/** The signed-in person's id as a key, or undefined (anonymous, or not an id). */
function userKey(ctx: Context): number | undefined {
  const user = ctx.getAttribute('user');
  return typeof user === 'string' && /^[1-9][0-9]{0,9}$/.test(user) && Number(user) <= 2_147_483_647
    ? Number(user)
    : undefined;
}

/** Articles the request may see: published ones, and the user's own. */
function visibleArticle(ctx: Context) {
  const user = userKey(ctx);
  return user === undefined ? { status: 'published' } : { OR: [{ status: 'published' }, { authorId: user }] };
}

/** createdAt and updatedAt are server-set. */
const timestamps = (operation: 'create' | 'update') => {
  const now = new Date();
  return operation === 'create' ? { createdAt: now, updatedAt: now } : { updatedAt: now };
};
const createdAt = (operation: 'create' | 'update') => (operation === 'create' ? { createdAt: new Date() } : {});

/** The four data layers, by resource type, on `prisma` (of database `provider`). */
export function createPrismaStore(prisma: BlogPrisma, provider: BlogProvider, options: StoreOptions = {}) {
  const scoped = options.scoped === true;
  /**
   * `filter[search]`: articles whose title contains any of the terms, case-insensitively
   * (SQLite's `LIKE` ignores ASCII case; PostgreSQL's is `mode: 'insensitive'`; on MySQL, whose
   * `title` column is case-sensitive `utf8mb4_bin` and where Prisma has no `mode`, the ids of
   * `lower(title) like` each term, read on the request's transaction). One condition, so it may
   * also stand inside `filter[or]` and `filter[not]`. Unlike the Kysely store's, on SQLite a `%`
   * or `_` in a term is a wildcard: Prisma's SQLite `contains` has no escape.
   */
  const search = async (value: FilterValue, ctx: Context) => {
    const terms = [value].flat();
    if (provider !== 'mysql')
      return {
        OR: terms.map((term) => ({
          title: { contains: term, ...(provider === 'postgresql' && { mode: 'insensitive' as const }) },
        })),
      };
    if (terms.length === 0) return { id: { in: [] } };
    const rows = await clientFor(prisma, ctx).$queryRawUnsafe<Array<{ id: number }>>(
      `select id from articles where ${terms.map(() => "lower(title) like ? escape '\\\\'").join(' or ')}`,
      ...terms.map((term) => likeText(term.toLowerCase(), 'contains')),
    );
    return { id: { in: rows.map((row) => row.id) } };
  };
  return defineStore<BlogPrisma, Resources>(
    prisma,
    {
      people: {
        model: 'person',
        table: 'people',
        columns: { createdAt: 'created_at' },
        nullable: ['email'],
        serverFields: createdAt,
        relationships: { articles: { field: 'articles', model: 'article', foreignKey: 'authorId' } },
      },
      articles: {
        model: 'article',
        table: 'articles',
        columns: { authorId: 'author_id', createdAt: 'created_at', updatedAt: 'updated_at' },
        nullable: ['body'],
        serverFields: timestamps,
        // Every write adds one; reads carry it in their ETag and writes honour If-Match.
        version: 'version',
        filters: { search },
        relationships: {
          author: { field: 'author', foreignKey: 'authorId' },
          comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },
          tags: { field: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId', relation: 'tag' } },
        },
        // The demo's Bearer stand-in sets `user` to a person id; only the author may change an article.
        policy: (ability, article, ctx) =>
          ability === 'update' || ability === 'delete' ? String(article.authorId) === ctx.getAttribute('user') : true,
        ...(scoped && { scope: visibleArticle }),
      },
      comments: {
        model: 'comment',
        table: 'comments',
        columns: { authorId: 'author_id', articleId: 'article_id', createdAt: 'created_at' },
        serverFields: createdAt,
        relationships: {
          author: { field: 'author', foreignKey: 'authorId' },
          article: { field: 'article', foreignKey: 'articleId' },
        },
        ...(scoped && { scope: (ctx: Context) => ({ article: { is: visibleArticle(ctx) } }) }),
      },
      events: {
        model: 'outboxEntry',
        table: 'jsonapi_outbox',
        columns: { resourceType: 'resource_type', resourceId: 'resource_id', occurredAt: 'occurred_at' },
      },
      tags: {
        model: 'tag',
        table: 'tags',
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
