/**
 * A transactional outbox in a table the host declares (the table `outboxMigration()` of
 * @jsonapi-gen/kysely makes; the demo's `outbox` in examples/blog/drizzle/):
 * `drizzleOutbox(db, table, { types })` (the API's `outbox` option) inserts one row per
 * successful write on the request's transaction; the host serves the table read-only as an
 * ordinary resource of `defineStore`.
 */
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Outbox } from 'jsonapi-gen';
import type { MySqlColumn, MySqlTable } from 'drizzle-orm/mysql-core';
import { isMysqlDatabase, mysqlDateTime } from './mysql.js';
import { databaseFor } from './transaction.js';
import { insertRows } from './write-statements.js';

/** The columns of an outbox table, by the property names `drizzleOutbox` writes (an `id` besides, autoincrementing). */
type EntryColumns<C> = { action: C; resourceType: C; resourceId: C; changed: C; occurredAt: C };

/**
 * An outbox table as a Drizzle table: `jsonapi_outbox` (`outboxMigration`'s) with these
 * properties, `changed` text (the member names as a JSON array), `occurredAt` text on SQLite
 * and `timestamp` with time zone in `string` mode on PostgreSQL, `datetime` in `string` mode on
 * MySQL (holding UTC).
 */
export type OutboxTable =
  | (SQLiteTable & EntryColumns<SQLiteColumn>)
  | (PgTable & EntryColumns<PgColumn>)
  | (MySqlTable & EntryColumns<MySqlColumn>);

/** Options of `drizzleOutbox`. */
export interface DrizzleOutboxOptions {
  /** The resource types whose writes are recorded. */
  types: readonly string[];
}

/**
 * The API's `outbox` on `db`, in `table`: each entry one insert on the request's transaction
 * (`drizzleTransaction(db)`), so it commits or rolls back with the write.
 *
 * @example
 * import { db } from './db.js';
 * import { outbox } from './tables.js';
 * new JsonApi({ transaction: drizzleTransaction(db), outbox: drizzleOutbox(db, outbox, { types: ['articles'] }) });
 */
export function drizzleOutbox(db: object, table: OutboxTable, options: DrizzleOutboxOptions): Outbox {
  // MySQL's DATETIME takes no zone: the instant as UTC text.
  const dateTime = isMysqlDatabase(db) ? (text: string) => mysqlDateTime(text) as string : (text: string) => text;
  return {
    types: options.types,
    // One shape for every entry: prepared once (see `insertRows`).
    record: (entry, context) =>
      insertRows(
        databaseFor(db, context),
        db,
        table,
        [
          {
            action: entry.action,
            resourceType: entry.type,
            resourceId: entry.id,
            changed: JSON.stringify(entry.changed),
            occurredAt: dateTime(entry.occurredAt),
          },
        ],
        false,
      ),
  };
}
