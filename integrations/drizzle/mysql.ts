/**
 * What the store does differently on MySQL and MariaDB (drizzle-orm/mysql2): `DATETIME` has no
 * time zone, so date-time columns hold UTC instants, written and compared as
 * `YYYY-MM-DD HH:MM:SS.fff` in UTC (MariaDB refuses RFC 3339's `T...Z`) and read back as the
 * RFC 3339 text responses carry; and there is no `RETURNING`, so a write tells what it changed
 * by the rows it matched (mysql2 asks for found rows, not changed ones).
 */
import { type Column, is } from 'drizzle-orm';
import { MySqlDatabase } from 'drizzle-orm/mysql-core';

/** Whether `db` (a database or transaction) is a MySQL one (drizzle-orm/mysql2's). */
export function isMysqlDatabase(db: object): boolean {
  return is(db, MySqlDatabase);
}

/** Whether `column` is a MySQL `datetime` or `timestamp` column. */
export function isMysqlDateTime(column: Column): boolean {
  return column.columnType.startsWith('MySqlDateTime') || column.columnType.startsWith('MySqlTimestamp');
}

/** An RFC 3339 date-time with a zone (what the runtime hands a write or a filter: UTC, milliseconds). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * `value` as a MySQL `DATETIME` takes an instant: a `Date` or RFC 3339 text with a zone becomes
 * UTC `YYYY-MM-DD HH:MM:SS.fff`; anything else is left for the database to judge.
 *
 * @example
 * mysqlDateTime('2024-01-01T10:00:00+02:00'); // '2024-01-01 08:00:00.000'
 */
export function mysqlDateTime(value: unknown): unknown {
  const date =
    value instanceof Date ? value : typeof value === 'string' && RFC3339.test(value) ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) return value;
  const iso = date.toISOString();
  // A year past 9999 has a sign in toISOString; DATETIME cannot hold it anyway.
  return iso.length === 24 ? `${iso.slice(0, 10)} ${iso.slice(11, 23)}` : value;
}

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
