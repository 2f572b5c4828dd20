/**
 * Prepared writes on MySQL and MariaDB through public APIs: a wrapper of the host's mysql2 pool,
 * to pass to Kysely's `MysqlDialect`, whose connections send `insert`, `update`, `delete` and
 * `replace` through mysql2's `execute` (prepared once per connection, then sent as a statement id
 * and binary values) and everything else through `query` (text, values inlined by mysql2) as
 * Kysely does.
 *
 * Why writes only: a write sends its values and gets back an OK packet or a row or two, so the
 * binary protocol saves the client's escaping and the server's parsing; a read through `execute`
 * gets its rows in the binary protocol, where a pool's `typeCast` (such as `mysqlDateTimeText`)
 * is handed a new field object for every cell, which costs far more than it saves on pages of
 * rows. Transaction control has no values and nothing to prepare.
 *
 * mysql2 keeps a connection's prepared statements in a cache of `maxPreparedStatements` (default
 * 16,000) per connection, and the server has its own limit across all sessions
 * (`max_prepared_stmt_count`, 16,382 by default). So that writes of ever new shapes (a value list
 * of every length) cannot fill either, each wrapped pool sends at most `maxStatements` distinct
 * texts prepared, the first it sees; later texts go out as text, as before.
 */
import type { MysqlPool, MysqlPoolConnection, MysqlQueryResult } from 'kysely';

type Callback = (error: unknown, result: MysqlQueryResult) => void;

/** A mysql2 pool connection: what Kysely uses of it, plus `execute`. */
export interface PreparingConnection extends MysqlPoolConnection {
  execute(sql: string, parameters: Array<unknown>, callback: Callback): unknown;
}

/** A pool whose connections have `execute` (mysql2's `createPool`, the callback API). */
export interface PreparingPool {
  getConnection(callback: (error: unknown, connection: PreparingConnection) => void): void;
  end(callback: (error: unknown) => void): void;
}

export interface PreparedMysqlPoolOptions {
  /** Distinct write texts the pool sends prepared (the first it sees); later texts go out as text. Default 200. */
  maxStatements?: number;
}

/** Statements sent prepared: the writes (a `with` in front is not looked for: it goes as text). */
const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/** Whether `sql` goes out prepared: a write in `prepared` already, or a new one while it has room. */
function preparing(prepared: Set<string>, sql: string, maxStatements: number): boolean {
  if (prepared.has(sql)) return true;
  if (prepared.size >= maxStatements || !WRITE.test(sql)) return false;
  prepared.add(sql);
  return true;
}

/**
 * Wraps a mysql2 pool so that Kysely's writes (`insert`, `update`, `delete`, `replace`) go out
 * prepared through `execute` (at most `maxStatements` distinct texts, the first seen) and
 * everything else as text through `query`, as Kysely sends it.
 * Results and errors are mysql2's either way (`insertId`, `affectedRows`, the rows of
 * `returning`; a duplicate key's `ER_DUP_ENTRY`), so the store maps them as before. The pool
 * itself is unchanged: its own `query` and `execute` work as ever.
 *
 * @example
 * import mysql from 'mysql2';
 * import { Kysely, MysqlDialect } from 'kysely';
 * import { mysqlDateTimeText, preparedMysqlPool } from '@jsonapi-gen/kysely';
 * import type { Database } from './db.js';
 * const pool = mysql.createPool({ uri: process.env.DATABASE_URL, timezone: 'Z', typeCast: mysqlDateTimeText });
 * const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool: preparedMysqlPool(pool) }) });
 */
export function preparedMysqlPool(pool: PreparingPool, options: PreparedMysqlPoolOptions = {}): MysqlPool {
  const maxStatements = options.maxStatements ?? 200;
  if (!Number.isInteger(maxStatements) || maxStatements < 0)
    throw new TypeError(`preparedMysqlPool: maxStatements must be a whole number, got ${maxStatements}`);
  // Write texts sent prepared so far (see the module's comment).
  const prepared = new Set<string>();
  // One wrapper per physical connection, made once: Kysely keys its own connection object by it.
  const wrappers = new WeakMap<PreparingConnection, MysqlPoolConnection>();
  const wrap = (connection: PreparingConnection): MysqlPoolConnection => {
    let wrapper = wrappers.get(connection);
    if (wrapper) return wrapper;
    function query(sql: string, parameters: Array<unknown>): ReturnType<MysqlPoolConnection['query']>;
    function query(sql: string, parameters: Array<unknown>, callback: Callback): void;
    function query(sql: string, parameters: Array<unknown>, callback?: Callback) {
      // A stream (no callback) stays a text query: it reads rows.
      if (callback === undefined) return connection.query(sql, parameters);
      if (preparing(prepared, sql, maxStatements)) connection.execute(sql, parameters, callback);
      else connection.query(sql, parameters, callback);
    }
    wrapper = { query, release: () => connection.release() };
    wrappers.set(connection, wrapper);
    return wrapper;
  };
  return {
    getConnection: (callback) =>
      pool.getConnection((error, connection) => callback(error, error ? connection : wrap(connection))),
    end: (callback) => pool.end(callback),
  };
}
