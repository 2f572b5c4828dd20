/**
 * The blog's data layers on Drizzle (`npm run demo -- --store drizzle`): the resources of
 * `schema.ts` backed by the Drizzle tables of `drizzle/sqlite.ts`, `drizzle/postgresql.ts` or `drizzle/mysql.ts`
 * through `@jsonapi-gen/drizzle`, as `store.ts` backs them by the Kysely store: the same
 * `search` filter, policy, version, server-set timestamps and relationships (from the tables'
 * `relations()`), and `scoped` for row-level reads.
 */
import SQLite from 'better-sqlite3';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as sqliteDrizzle } from 'drizzle-orm/better-sqlite3';
import { drizzle as mysqlDrizzle } from 'drizzle-orm/mysql2';
import { drizzle as postgresDrizzle } from 'drizzle-orm/node-postgres';
import mysql from 'mysql2';
import pg from 'pg';
import type { Context, FilterValue } from 'jsonapi-gen';
import { type DrizzleDatabase, defineStore, likeText } from '@jsonapi-gen/drizzle';
import { SQLITE_BUSY_TIMEOUT_MS } from './db.js';
import * as mysqlTables from './drizzle/mysql.js';
import * as postgresTables from './drizzle/postgresql.js';
import * as sqliteTables from './drizzle/sqlite.js';
import type { Resources } from './generated/index.js';
import type { StoreOptions } from './store.js';

/** The demo's tables: the modules declare the same tables, columns and relations (test/drizzle/tables.test.ts). */
type Tables = typeof sqliteTables;

/** The databases the demo's Drizzle store runs on. */
export type DrizzleDialect = 'sqlite' | 'postgresql' | 'mysql';

/** A Drizzle database on the demo's database, and what closes its connection or pool. */
export interface OpenDrizzle {
  db: DrizzleDatabase;
  dialect: DrizzleDialect;
  close(): Promise<void>;
}

/**
 * Drizzle on the demo's database: better-sqlite3 on the SQLite file (WAL, foreign keys, writes
 * waiting for another connection's lock up to the busy timeout), or a node-postgres pool on the
 * PostgreSQL URL (sessions in UTC, so that date-times come back as the text responses carry), or
 * a mysql2 pool on the `mysql://` URL (sessions in UTC: `DATETIME` columns hold UTC instants).
 * `onQuery` hears each SQL statement Drizzle runs (its logger), for counting them.
 *
 * @example
 * const { db, dialect, close } = openDrizzle({ file: 'blog.sqlite' });
 * const store = createDrizzleStore(db, dialect);
 */
export function openDrizzle(
  where: { file: string } | { databaseUrl: string },
  options: { onQuery?: ((sql: string) => void) | undefined } = {},
): OpenDrizzle {
  const onQuery = options.onQuery;
  const logger = onQuery ? { logQuery: (query: string) => onQuery(query) } : false;
  if ('file' in where) {
    const client = new SQLite(where.file, { timeout: SQLITE_BUSY_TIMEOUT_MS });
    client.pragma('journal_mode = WAL');
    client.pragma('foreign_keys = ON');
    return {
      db: sqliteDrizzle({ client, logger }),
      dialect: 'sqlite',
      close: () => {
        client.close();
        return Promise.resolve();
      },
    };
  }
  if (/^mysql:/i.test(where.databaseUrl)) {
    const pool = mysql.createPool({ uri: where.databaseUrl, connectionLimit: 10, timezone: 'Z' });
    pool.on('connection', (connection) => void connection.query("set time_zone = '+00:00'"));
    return { db: mysqlDrizzle({ client: pool, logger }), dialect: 'mysql', close: () => pool.promise().end() };
  }
  const pool = new pg.Pool({ connectionString: where.databaseUrl, max: 10, options: '-c TimeZone=UTC' });
  let closing = false;
  // An idle client whose server ends the connection emits 'error' on the pool; the pool replaces it.
  pool.on('error', (error) => {
    if (!closing) console.error(`PostgreSQL connection lost: ${error.message}`);
  });
  return {
    db: postgresDrizzle({ client: pool, logger }),
    dialect: 'postgresql',
    close: () => {
      closing = true;
      return pool.end();
    },
  };
}

/** createdAt and updatedAt are server-set: RFC 3339 text in UTC, as the seed writes them. */
const timestamps = (operation: 'create' | 'update') => {
  const now = new Date().toISOString();
  return operation === 'create' ? { createdAt: now, updatedAt: now } : { updatedAt: now };
};
const createdAt = (operation: 'create' | 'update') =>
  operation === 'create' ? { createdAt: new Date().toISOString() } : {};

/** The signed-in person's id as a key, or undefined (anonymous, or not an id). */
function userKey(ctx: Context): number | undefined {
  const user = ctx.getAttribute('user');
  return typeof user === 'string' && /^[1-9][0-9]{0,9}$/.test(user) && Number(user) <= 2_147_483_647
    ? Number(user)
    : undefined;
}

/** The data layers on `tables`, for `dialect`. */
function blogStore(db: object, tables: Tables, dialect: DrizzleDialect, scoped: boolean) {
  const { articles, comments } = tables;
  /** Articles the request may see: published ones, and the user's own. */
  const visibleArticle = (ctx: Context): SQL => {
    const user = userKey(ctx);
    const published = sql`${articles.status} = 'published'`;
    return user === undefined ? published : sql`(${published} or ${articles.authorId} = ${user})`;
  };
  /**
   * `filter[search]`: articles whose title contains any of the terms, case-insensitively and
   * literally (`%` and `_` too). One condition, so it may also stand in `filter[or]` and `filter[not]`.
   */
  // The escape character, a backslash: MySQL's string literals double it.
  const escape = sql.raw(dialect === 'mysql' ? `'\\\\'` : `'\\'`);
  const search = (value: FilterValue): SQL =>
    sql.join(
      [value]
        .flat()
        .map((term) => sql`lower(${articles.title}) like ${likeText(term.toLowerCase(), 'contains')} escape ${escape}`),
      sql` or `,
    );
  return defineStore<Tables, Resources>(
    db,
    tables,
    {
      people: { table: tables.people, serverColumns: createdAt },
      articles: {
        table: articles,
        serverColumns: timestamps,
        // Every write adds one; reads carry it in their ETag and writes honour If-Match.
        version: 'version',
        filters: { search: (value) => sql`(${search(value)})` },
        // The demo's Bearer stand-in sets `user` to a person id; only the author may change an article.
        policy: (ability, article, ctx) =>
          ability === 'update' || ability === 'delete' ? String(article.authorId) === ctx.getAttribute('user') : true,
        ...(scoped && { scope: visibleArticle }),
      },
      comments: {
        table: comments,
        serverColumns: createdAt,
        ...(scoped && {
          scope: (ctx: Context) =>
            sql`${comments.articleId} in (select ${articles.id} from ${articles} where ${visibleArticle(ctx)})`,
        }),
      },
      events: { table: tables.outbox },
      tags: { table: tables.tags },
    },
    { dialect },
  );
}

/**
 * The data layers, by resource type, on a Drizzle database of `dialect`: `drizzle(...)` of
 * `drizzle-orm/better-sqlite3` on the SQLite file, of `drizzle-orm/node-postgres` or
 * `drizzle-orm/mysql2` on a pool.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import { drizzle } from 'drizzle-orm/better-sqlite3';
 * const store = createDrizzleStore(drizzle(new SQLite('blog.sqlite')), 'sqlite');
 */
export function createDrizzleStore(db: object, dialect: DrizzleDialect, options: StoreOptions = {}) {
  const scoped = options.scoped === true;
  // The PostgreSQL and MySQL modules' tables have the SQLite module's keys, columns and relations.
  const tables =
    dialect === 'sqlite'
      ? sqliteTables
      : dialect === 'mysql'
        ? (mysqlTables as unknown as Tables)
        : (postgresTables as unknown as Tables);
  return blogStore(db, tables, dialect, scoped);
}

export type DrizzleBlogStore = ReturnType<typeof createDrizzleStore>;
