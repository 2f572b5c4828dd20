/**
 * What the store does differently on MySQL and MariaDB (drizzle-orm/mysql2): `DATETIME` has no
 * time zone, so date-time columns hold UTC instants, written and compared as
 * `YYYY-MM-DD HH:MM:SS.fff` in UTC (MariaDB refuses RFC 3339's `T...Z`) and read back as the
 * RFC 3339 text responses carry; and there is no `RETURNING`, so a write tells what it changed
 * by the rows it matched (mysql2 asks for found rows, not changed ones).
 */
import { type Column, is } from 'drizzle-orm';
import { MySqlDatabase } from 'drizzle-orm/mysql-core';
import { mysqlDateTime } from 'jsonapi-gen/internal';

/** Whether `db` (a database or transaction) is a MySQL one (drizzle-orm/mysql2's). */
export function isMysqlDatabase(db: object): boolean {
  return is(db, MySqlDatabase);
}

/** Whether `column` is a MySQL `datetime` or `timestamp` column. */
export function isMysqlDateTime(column: Column): boolean {
  return column.columnType.startsWith('MySqlDateTime') || column.columnType.startsWith('MySqlTimestamp');
}

export { mysqlDateTime };

/**
 * A MySQL date-time as drizzle-orm/mysql2 reads it (`YYYY-MM-DD HH:MM:SS[.f...]`, the session's
 * time, UTC) as RFC 3339 text with milliseconds; anything else unchanged.
 */
export function mysqlDateTimeText(value: unknown): unknown {
  if (typeof value !== 'string' || value.length < 19 || value.charCodeAt(10) !== 32) return value;
  const fraction = (value.slice(20) + '000').slice(0, 3);
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${fraction}Z`;
}

/** The rows an `update` or `delete` matched, from what drizzle-orm/mysql2 resolves it to (`[ResultSetHeader, ...]`). */
export function affectedRows(result: unknown): number {
  const header = Array.isArray(result) ? (result[0] as unknown) : result;
  return Number((header as { affectedRows?: number } | undefined)?.affectedRows ?? 0);
}

/** The key MySQL gave the row an `insert` made (`[ResultSetHeader, ...]`). */
export function insertId(result: unknown): number {
  const header = Array.isArray(result) ? (result[0] as unknown) : result;
  return Number((header as { insertId?: number } | undefined)?.insertId);
}
