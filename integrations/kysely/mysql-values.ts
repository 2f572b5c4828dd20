/**
 * Date-times on MySQL and MariaDB: `DATETIME` has no time zone, so the store keeps UTC instants
 * in it. Written as `YYYY-MM-DD HH:MM:SS.fff` in UTC (MariaDB refuses RFC 3339's `T...Z` in a
 * write), read back as the RFC 3339 text responses carry (`mysqlDateTimeText`, a mysql2
 * `typeCast`). The columns to convert are the `datetime` and `timestamp` columns of the
 * connection's database, read once from `information_schema`.
 */
import { type Kysely, sql } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { mysqlDateTime } from 'jsonapi-gen/internal';

export { mysqlDateTime };

/** A field of a mysql2 result, as its `typeCast` option sees it. */
export interface MysqlField {
  readonly type: string;
  string(): string | null;
}

/**
 * A mysql2 `typeCast` that reads `DATETIME` and `TIMESTAMP` as RFC 3339 UTC text with
 * milliseconds (`2024-01-05T04:00:00.000Z`), the form JSON:API responses carry (the session's
 * time zone must be UTC for `TIMESTAMP`), and every other type as mysql2 does.
 *
 * @example
 * import mysql from 'mysql2';
 * const pool = mysql.createPool({ uri: process.env.DATABASE_URL, timezone: 'Z', typeCast: mysqlDateTimeText });
 */
export function mysqlDateTimeText(field: MysqlField, next: () => unknown): unknown {
  if (field.type !== 'DATETIME' && field.type !== 'TIMESTAMP') return next();
  const text = field.string();
  return text === null ? null : rfc3339(text);
}

/**
 * Server date-time text (`YYYY-MM-DD HH:MM:SS[.f...]`) as RFC 3339 UTC with milliseconds, as many
 * as the column keeps, padded or cut; text already in that form (from a `typeCast`) as it is.
 *
 * @example
 * rfc3339('2024-01-05 04:00:00.5'); // '2024-01-05T04:00:00.500Z'
 */
export function rfc3339(text: string): string {
  if (text.charCodeAt(10) !== 32) return text;
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(text.slice(20) + '000').slice(0, 3)}Z`;
}

const dateTimeColumns = new WeakMap<Kysely<AnyDatabase>, Promise<ReadonlySet<string>>>();

/**
 * The `table.column` names of the `datetime` and `timestamp` columns of `db`'s database, read
 * once (a failed read is tried again next time) on `on`: the write's transaction, since a
 * transaction waiting for another connection of the pool would wait forever once every
 * connection is held by a transaction doing the same.
 */
function columnsOf(db: Kysely<AnyDatabase>, on: Kysely<AnyDatabase>): Promise<ReadonlySet<string>> {
  let columns = dateTimeColumns.get(db);
  if (columns === undefined) {
    columns = sql<{ name: string }>`select concat(table_name, '.', column_name) as name from information_schema.columns
      where table_schema = database() and data_type in ('datetime', 'timestamp')`
      .execute(on)
      .then(({ rows }) => new Set(rows.map((r) => r.name)));
    columns.catch(() => dateTimeColumns.delete(db));
    dateTimeColumns.set(db, columns);
  }
  return columns;
}

/**
 * `row` (columns of `table` to write) with the values of its date-time columns as MySQL takes
 * them (`mysqlDateTime`), in place. The columns are read once per `db`, on `on` (the write's
 * transaction, when there is one: see `columnsOf`).
 *
 * @example
 * import { db } from './db.js';
 * await mysqlRow(db, 'articles', { title: 'x', created_at: '2024-01-01T00:00:00.000Z' });
 */
export async function mysqlRow(
  db: Kysely<AnyDatabase>,
  table: string,
  row: Record<string, unknown>,
  on: Kysely<AnyDatabase> = db,
): Promise<void> {
  const columns = await columnsOf(db, on);
  for (const column of Object.keys(row)) {
    if (columns.has(`${table}.${column}`)) row[column] = mysqlDateTime(row[column]);
  }
}
