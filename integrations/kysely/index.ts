/**
 * Kysely integration: back JSON:API resources by tables of a Kysely database.
 *
 * Read authorization, the contract. The runtime decides which endpoints (`visible()` on
 * endpoints), fields (`visible()` on fields), filters and sorts a request may use. Which ROWS
 * it may see is the data layer's to decide: the runtime reads rows only through the data
 * layer (`find`, `query` + `results` + `count`, `loadRelated`, `queryRelated`) and treats a
 * row those do not return as one that does not exist. It also checks written relationship
 * linkage with the related type's `find`, and finds the target of every Update, Delete and
 * relationship write (Atomic Operations included) with `find`. So a data layer whose every
 * read applies the same row filter enforces it on every path: a hidden row is never
 * serialized, included, linked, counted, written or confirmed to exist (404, not 403).
 * With this integration that filter is the mapping's `scope`, and the store applies it to
 * every one of those reads. A hand-written data layer must do the same in each of them.
 *
 * @example
 * import { db } from './db.js';
 * const store = defineTableStore(db, { articles: { table: 'articles',
 *   scope: (query, ctx) => query.where('articles.author_id', '=', Number(ctx.getAttribute('user') ?? 0)) } });
 *
 * @example
 * import { defineStore, type StoreMapping } from '@jsonapi-gen/kysely';
 * import { db, type Database } from './db.js';
 * import { createApi, type Resources } from './generated/index.js';
 * declare const mappings: StoreMapping<Database, Resources>; // a table mapping per resource: see defineStore
 * const store = defineStore<Database, Resources>(db, mappings);
 * const api = createApi(store);
 *
 * @module @jsonapi-gen/kysely
 */

/**
 * Backs resources by tables: `defineStore(db, { type: mapping, ... })` gives a data layer per type.
 *
 * @example
 * import { db, type Database } from './db.js';
 * import { createApi, type Resources } from './generated/index.js';
 * declare const mappings: StoreMapping<Database, Resources>;
 * const api = createApi(defineStore<Database, Resources>(db, mappings));
 */
export { ListQuery, defineStore, defineTableStore, type UntypedResource } from './store.js';
/**
 * Types of a store: a row as the serializer reads it, one resource's data layer, the store.
 *
 * @example
 * import { store } from './store.js';
 * const layer: KyselyDataLayer = store.articles;
 */
export type { KyselyDataLayer, Model, Store } from './store.js';
/**
 * The mapping of one resource to its table, and of its relationships.
 *
 * @example
 * import type { Database } from './db.js';
 * const articles: TableMapping<Database, 'articles'> = { table: 'articles', columns: { createdAt: 'created_at' } };
 */
export type {
  AnyTableMapping,
  ColumnName,
  CustomFilterImplementation,
  CustomWhere,
  RelationshipMapping,
  TableMapping,
  TableName,
  ThroughMapping,
  ToManyMapping,
  ToOneMapping,
} from './mapping.js';
/**
 * The query type of every Kysely-backed resource (what custom filters and sorts receive), and
 * the column filter and sort the store runs for the schema's `Where` and `SortBy`.
 *
 * @example
 * const search = (query: SelectQuery, value: FilterValue) => query.where('articles.title', 'like', `%${value}%`);
 */
export { orderByColumn, whereColumn } from './filters.js';
export type { SelectQuery } from './select-query.js';
/**
 * A `like` pattern that matches a term literally (`%` and `_` are plain characters), on SQLite
 * and PostgreSQL alike.
 *
 * @example
 * const search = (query: SelectQuery, term: string) => query.where((eb) => eb('articles.title', 'like', likePattern(term, 'contains')));
 */
export { likePattern, type LikePosition } from './like.js';
/**
 * Mapping types checked against the generated `Resources` and the Kysely `Database` type (a
 * resource's custom filters and sorts required by `WithCustomFilters` and `WithCustomSorts`,
 * which name them in the error of a mapping that lacks them).
 *
 * @example
 * import type { Database } from './db.js';
 * import type { ArticlesTypes } from './generated/index.js';
 * declare const mapping: ResourceMapping<Database, ArticlesTypes>; // its table, columns, relationships, filters { search }, policy
 */
export type {
  CheckedTableMapping,
  FittingColumn,
  ResourceMapping,
  StoreMapping,
  StoreModel,
  TableMappings,
  WithCustomFilters,
  WithCustomSorts,
} from './checked.js';
/**
 * One request, one transaction: `kyselyTransaction(db)` for `new JsonApi({ transaction })`,
 * `withTransaction` for host code; data layers run on it through `executorFor(db, ctx)`.
 *
 * @example
 * import { db } from './db.js';
 * declare const ctx: Context;
 * const api = new JsonApi({ transaction: kyselyTransaction(db) });
 * await withTransaction(db, async (trx) => {
 *   // statements on trx
 * });
 * await executorFor(db, ctx).deleteFrom('comments').where('article_id', '=', 1).execute(); // in a data layer
 */
export { executorFor, kyselyTransaction, withTransaction, type TransactionOptions } from './transaction.js';
/**
 * SQLite (better-sqlite3) for Kysely: `sqliteKysely` makes a Kysely whose statements are
 * prepared once per SQL text; with `runner: 'direct'` the store runs its compiled statements on
 * better-sqlite3 directly (reads outside transactions, and everything inside its own), without
 * Kysely's log and plugins, which that runner refuses. `sqliteDialect` is the statement cache as
 * a dialect, `cachedStatements` the cache alone, for a `SqliteDialect` of your own.
 *
 * @example
 * import SQLite from 'better-sqlite3';
 * import type { Database } from './db.js';
 * const db = sqliteKysely<Database>(new SQLite('blog.sqlite'), { runner: 'direct' });
 */
export {
  cachedStatements,
  sqliteDialect,
  sqliteKysely,
  type DirectDatabase,
  type PreparingDatabase,
} from './statements.js';
/**
 * How the store runs its compiled statements on a Kysely `sqliteKysely` or `postgresKysely`
 * made: `'kysely'` (the default) through Kysely's executor, `'direct'` on the driver.
 *
 * @example
 * const runner: RunnerName = process.env.KYSELY_LOG ? 'kysely' : 'direct';
 */
export type { RunnerName } from './runner.js';
export { idempotencyMigration, kyselyIdempotency, type KyselyIdempotencyOptions } from './idempotency.js';
export { kyselyOutbox, outboxMigration, type KyselyOutboxOptions } from './outbox.js';
/**
 * PostgreSQL (node-postgres) for Kysely: `postgresKysely` makes a Kysely whose statements go out
 * named (parsed and planned once per connection, a bounded number of names); with
 * `runner: 'direct'` the store runs its compiled statements outside transactions on the pool's
 * clients directly, without Kysely's log and plugins, which that runner refuses.
 * `preparedPool` is the naming alone, a wrapper of the `pg` Pool you give Kysely's `PostgresDialect`.
 *
 * @example
 * import pg from 'pg';
 * import { Kysely, PostgresDialect } from 'kysely';
 * import type { Database } from './db.js';
 * const db = postgresKysely<Database>(new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }), { runner: 'direct' });
 * // or, with Kysely's own dialect:
 * const viaDialect = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparedPool(new pg.Pool({ max: 10 })) }) });
 */
export {
  type NamedQueryClient,
  type NamedQueryPool,
  type PreparedPoolOptions,
  postgresKysely,
  preparedPool,
} from './prepared-pool.js';
/**
 * node-postgres type parsers that read `timestamptz` as the RFC 3339 UTC text responses carry,
 * not as a Date to print back (the `types` option of a `pg.Pool`).
 *
 * @example
 * import pg from 'pg';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, options: '-c TimeZone=UTC', types: dateTimeText(pg.types) });
 */
export { type PgTypeParsers, dateTimeText } from './pg-types.js';
/**
 * MySQL and MariaDB: a mysql2 `typeCast` that reads `DATETIME` and `TIMESTAMP` as the RFC 3339
 * UTC text responses carry, and an instant as `DATETIME` takes it (UTC, no zone). The store
 * writes its date-time columns as `mysqlDateTime` does by itself.
 *
 * @example
 * import mysql from 'mysql2';
 * import { Kysely, MysqlDialect } from 'kysely';
 * import type { Database } from './db.js';
 * const pool = mysql.createPool({ uri: process.env.DATABASE_URL, timezone: 'Z', typeCast: mysqlDateTimeText });
 * pool.on('connection', (connection) => connection.query("set time_zone = '+00:00'"));
 * const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
 */
export { type MysqlField, mysqlDateTime, mysqlDateTimeText } from './mysql-values.js';
/**
 * MySQL and MariaDB: a wrapper of a mysql2 pool for Kysely's `MysqlDialect` that sends the
 * statements of a transaction prepared (the server parses each once per connection; a bounded
 * number of texts, process-wide; reads outside transactions go as text) and reads date-times as
 * RFC 3339 UTC text, with no `typeCast`.
 *
 * @example
 * import mysql from 'mysql2';
 * import { Kysely, MysqlDialect } from 'kysely';
 * import type { Database } from './db.js';
 * const pool = mysql.createPool({ uri: process.env.DATABASE_URL, dateStrings: true, timezone: 'Z', connectionLimit: 10 });
 * pool.on('connection', (connection) => connection.query("set time_zone = '+00:00'"));
 * const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool: mysqlPreparedPool(pool, { maxStatements: 500 }) }) });
 */
export {
  type MysqlPreparedPoolOptions,
  type PreparingConnection,
  type PreparingPool,
  mysqlPreparedPool,
} from './mysql-prepared-pool.js';
/**
 * MySQL and MariaDB: whether a create reads its row back by key (MySQL 8) or takes it from
 * `insert ... returning` (MariaDB 10.5+), as the server's `version()` says, unless a proxy's
 * version misleads: then say it with `assumeInsertReturning`.
 *
 * @example
 * import { db } from './db.js';
 * assumeInsertReturning(db, false); // a MySQL 8 behind a proxy that reports another version
 */
export { assumeInsertReturning } from './mysql-server.js';
