/**
 * Prepared statements on MySQL and MariaDB through public APIs: a wrapper of the host's mysql2
 * pool, to pass to Kysely's `MysqlDialect`, whose connections send the statements with values
 * of a transaction (a write's, and the checks it makes) through mysql2's `execute` (prepared once
 * per connection, then only the values go over the wire, and the server skips parsing) instead
 * of `query` (the SQL text with the values written into it, parsed on every call).
 *
 * Statements outside a transaction (reads) go as text: measured on the blog's pages, reading
 * their rows' date-times in the binary protocol cost mysql2 more than parsing their text costs
 * the server. Statements without values (`begin`, `commit`, savepoints) go as text too: there is
 * nothing to bind. The wrapper knows a connection is in a transaction from the `begin` (or
 * `start transaction`) Kysely sends on it, until its `commit` or `rollback`.
 *
 * Which texts are prepared comes from one process-wide set, bounded: past `maxStatements`
 * distinct texts, new texts go as text, so that a host with unbounded SQL shapes (say `IN` lists
 * of every length) cannot fill the server's `max_prepared_stmt_count`, which counts every
 * connection's statements; should the server refuse one anyway (other clients hold the rest), or
 * refuse a statement the prepared protocol does not take, that call and later ones of the text
 * go as text.
 *
 * Date-times are read as the RFC 3339 UTC text responses carry, whichever protocol ran: make the
 * pool with `dateStrings: true`, so that mysql2 reads `DATETIME` and `TIMESTAMP` as the server's
 * text, which the wrapper rewrites. (Without it they come as Dates, read in the pool's
 * `timezone`, which must then be `'Z'`; a `typeCast` such as `mysqlDateTimeText` is not needed
 * and costs a wrapper object per value in mysql2's binary parser; its text passes through.)
 * `FLOAT` columns are read as the text protocol reads them, six significant digits: the binary
 * protocol gives the single-precision value's every digit.
 */
import type { MysqlPool, MysqlPoolConnection, MysqlQueryResult, MysqlStream, MysqlStreamOptions } from 'kysely';
import { rfc3339 } from './mysql-values.js';

/** What `query` without a callback answers: a query Kysely can stream, which tells its columns first. */
interface Streamable {
  on(event: 'fields', listener: (fields: ResultField[]) => void): unknown;
  stream<T>(options: MysqlStreamOptions): MysqlStream<T>;
}

/** Options of `mysqlPreparedPool`. */
export interface MysqlPreparedPoolOptions {
  /** Distinct statement texts prepared, process-wide; later texts go as text. Default 500. */
  maxStatements?: number;
}

/** A column of a mysql2 result, as its callback gives it. */
interface ResultField {
  name: string;
  columnType?: number;
}

type Callback = (error: Error | null, result?: unknown, fields?: ResultField[]) => void;

/** A value Kysely binds to a statement. */
export type BoundValue = string | number | bigint | boolean | Date | null | Buffer | Uint8Array;

/** A mysql2 pool connection (callback API): `query`, which also streams (Kysely's `streamQuery`), `execute` and `release`. */
export interface PreparingConnection {
  query(sql: string, values: BoundValue[]): Streamable;
  query(sql: string, values: BoundValue[], callback: Callback): unknown;
  execute(sql: string, values: BoundValue[], callback: Callback): unknown;
  release(): void;
}

/** A mysql2 pool (callback API, `mysql.createPool`). */
export interface PreparingPool {
  getConnection(callback: (error: unknown, connection: PreparingConnection) => void): void;
  end(callback: (error: unknown) => void): void;
}

/** mysql2's column types of the columns rewritten (`mysql2/lib/constants/types`). */
const TIMESTAMP = 7;
const DATETIME = 12;
const FLOAT = 4;

/** MySQL errors that mean "not as a prepared statement": 1295 (not in the prepared protocol), 1461 (`max_prepared_stmt_count` reached). */
const NOT_PREPARED = new Set([1295, 1461]);

/** Statements that open a transaction, and that end one (not `rollback to` a savepoint). */
const BEGINS = /^\s*(begin|start\s+transaction)\b/i;
const ENDS = /^\s*(commit|rollback)\b(?!\s+to\b)/i;

/** Texts prepared so far, process-wide (see the module's comment). */
const prepared = new Set<string>();
/** Texts the server would not prepare: they go as text from then on. */
const refused = new Set<string>();

/** Whether `sql` goes prepared: it has values, and is or may still become one of the bounded set. */
function preparable(sql: string, values: readonly unknown[], maxStatements: number): boolean {
  if (values.length === 0 || refused.has(sql)) return false;
  if (prepared.has(sql)) return true;
  if (prepared.size >= maxStatements) return false;
  prepared.add(sql);
  return true;
}

/** The rows of a result with its date-times as RFC 3339 UTC text (from the server's text, or a Date read in UTC) and its `FLOAT`s as the text protocol reads them, in place. */
function readRows(result: unknown, fields: ResultField[] | undefined): unknown {
  if (!Array.isArray(result) || fields === undefined || result.length === 0) return result;
  let names: string[] | undefined;
  let floats: string[] | undefined;
  for (const field of fields) {
    if (field.columnType === DATETIME || field.columnType === TIMESTAMP) (names ??= []).push(field.name);
    else if (field.columnType === FLOAT) (floats ??= []).push(field.name);
  }
  if (names === undefined && floats === undefined) return result;
  for (const row of result as Array<Record<string, unknown>>) {
    for (const name of names ?? []) {
      const value = row[name];
      if (typeof value === 'string') row[name] = rfc3339(value);
      else if (value instanceof Date) row[name] = value.toISOString();
    }
    for (const name of floats ?? []) {
      const value = row[name];
      if (typeof value === 'number') row[name] = Number(value.toPrecision(6));
    }
  }
  return result;
}

/** `running`'s rows as `readRows` gives them, one by one, once its columns are known. */
function streamed(running: Streamable): Streamable {
  let fields: ResultField[] | undefined;
  running.on('fields', (columns) => (fields = columns));
  async function* rows<T>(stream: MysqlStream<T>): AsyncIterableIterator<T> {
    for await (const row of stream) {
      readRows([row], fields);
      yield row;
    }
  }
  return { on: (event, listener) => running.on(event, listener), stream: (options) => rows(running.stream(options)) };
}

/** `options.maxStatements`, or the default; a `TypeError` when it is not a whole number. */
function checkedMaxStatements(options: MysqlPreparedPoolOptions): number {
  const maxStatements = options.maxStatements ?? 500;
  if (!Number.isInteger(maxStatements) || maxStatements < 0)
    throw new TypeError(`mysqlPreparedPool: maxStatements must be a whole number, got ${maxStatements}`);
  return maxStatements;
}

/**
 * Wraps a mysql2 pool (`mysql.createPool`, the callback API Kysely's `MysqlDialect` takes) so that
 * Kysely's statements with values inside transactions go out prepared, at most `maxStatements`
 * distinct texts, and date-times come back as RFC 3339 UTC text. Make the pool with
 * `dateStrings: true` and `timezone: 'Z'`, and set each session's `time_zone` to UTC, so that
 * `TIMESTAMP` columns read as UTC too. Queries of your own on the pool itself are unchanged.
 *
 * @example
 * import mysql from 'mysql2';
 * import { Kysely, MysqlDialect } from 'kysely';
 * import type { Database } from './db.js';
 * const pool = mysql.createPool({ uri: process.env.DATABASE_URL, dateStrings: true, timezone: 'Z', connectionLimit: 10 });
 * pool.on('connection', (connection) => connection.query("set time_zone = '+00:00'"));
 * const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool: mysqlPreparedPool(pool) }) });
 */
export function mysqlPreparedPool(pool: PreparingPool, options: MysqlPreparedPoolOptions = {}): MysqlPool {
  const maxStatements = checkedMaxStatements(options);
  // One wrapper per physical connection, made once: Kysely keys its own per-connection state by it.
  const wrappers = new WeakMap<PreparingConnection, MysqlPoolConnection>();
  const wrap = (connection: PreparingConnection): MysqlPoolConnection => {
    let wrapper = wrappers.get(connection);
    if (wrapper) return wrapper;
    // Between Kysely's `begin` and its `commit` or `rollback` on this connection.
    let inTransaction = false;
    const read: (done: Callback) => Callback = (done) => (error, result, fields) =>
      error ? done(error) : done(null, readRows(result, fields));
    function query(sql: string, values: unknown[]): Streamable;
    function query(sql: string, values: unknown[], callback: (error: unknown, result: MysqlQueryResult) => void): void;
    function query(
      sql: string,
      parameters: unknown[],
      callback?: (error: unknown, result: MysqlQueryResult) => void,
    ): Streamable | void {
      const values = parameters as BoundValue[];
      // A stream (Kysely's `streamQuery`): as text, as mysql2 streams only queries.
      if (callback === undefined) return streamed(connection.query(sql, values));
      const done = callback as Callback;
      if (values.length === 0) {
        if (BEGINS.test(sql)) inTransaction = true;
        else if (ENDS.test(sql)) inTransaction = false;
      }
      // Positional arguments, not an options object: mysql2 takes that path several µs faster.
      if (!inTransaction || !preparable(sql, values, maxStatements)) {
        connection.query(sql, values, read(done));
        return;
      }
      connection.execute(sql, values, (error, result, fields) => {
        if (!error) return done(null, readRows(result, fields));
        const errno = (error as { errno?: unknown }).errno;
        if (typeof errno !== 'number' || !NOT_PREPARED.has(errno)) return done(error);
        // The server would not prepare it: nothing ran, so the text runs instead.
        refused.add(sql);
        connection.query(sql, values, read(done));
      });
    }
    wrapper = { query, release: () => connection.release() };
    wrappers.set(connection, wrapper);
    return wrapper;
  };
  return {
    getConnection: (callback) =>
      // On an error there is no connection to wrap: Kysely only reads the error.
      pool.getConnection((error, connection) => callback(error, error ? connection : wrap(connection))),
    end: (callback) => pool.end(callback),
  };
}
