/**
 * Idempotency keys in the database, so that any process can answer a retry: the table the
 * Kysely store's `idempotencyMigration` makes (`jsonapi_idempotency_keys`; the demo declares it
 * as a Drizzle table, `idempotencyKeys` in examples/blog/drizzle/), kept by the rules the SQL
 * stores share (`leasedIdempotency` of `jsonapi-gen/internal`): a claim is one
 * `insert ... on conflict do nothing` (`insert ignore` on MySQL), a lease that `drizzleTransaction` on the same database
 * marks written with the request's write.
 */
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { MySqlColumn, MySqlTable } from 'drizzle-orm/mysql-core';
import type { IdempotencyStore } from 'jsonapi-gen';
import { type KeyRow, type KeyTable, type LeaseOptions, leasedIdempotency } from 'jsonapi-gen/internal';
import { whenDrizzleUnavailable } from './errors.js';
import { affectedRows, isMysqlDatabase } from './mysql.js';
import { type DrizzleDatabase, isSqliteDatabase, sqliteTurn } from './transaction.js';

/** The columns of a keys table, by the property names `drizzleIdempotency` writes. */
type KeyColumns<C> = {
  key: C;
  fingerprint: C;
  createdAt: C;
  status: C;
  response: C;
  holder: C;
  written: C;
};

/**
 * The keys table as a Drizzle table: `jsonapi_idempotency_keys` (`idempotencyMigration`'s) with
 * these properties, `createdAt` a number of ms (`integer` on SQLite, `bigint` in `number` mode on
 * PostgreSQL and MySQL; on MySQL `key` a `varchar(768)`, `response` a `longtext`). The demo's
 * `idempotencyKeys` tables are such.
 */
export type IdempotencyKeysTable =
  (SQLiteTable & KeyColumns<SQLiteColumn>) | (PgTable & KeyColumns<PgColumn>) | (MySqlTable & KeyColumns<MySqlColumn>);

/** An update or insert that returns its rows where the database can (not MySQL). */
type Returning = PromiseLike<unknown> & { returning(fields: object): PromiseLike<unknown[]> };

/** The query builders the key statements use, which the dialects' databases have in this shape. */
interface KeyStatements {
  insert(table: IdempotencyKeysTable): {
    values(row: KeyRow): { onConflictDoNothing(): Returning };
    /** MySQL's `insert ignore`. */
    ignore(): { values(row: KeyRow): PromiseLike<unknown> };
  };
  select(): { from(table: IdempotencyKeysTable): { where(condition: unknown): PromiseLike<KeyRow[]> } };
  update(table: IdempotencyKeysTable): {
    set(values: Partial<KeyRow>): { where(condition: unknown): Returning };
  };
  delete(table: IdempotencyKeysTable): { where(condition: unknown): PromiseLike<unknown> };
}

/**
 * An `IdempotencyStore` on `db`, in `table` (the table `idempotencyMigration()` of
 * @jsonapi-gen/kysely creates, declared as a Drizzle table). Its statements run outside the
 * request's transaction (on SQLite, in a turn of their own: see `sqliteTurn`), so a claim is
 * visible to other processes at once. With `drizzleTransaction(db)` on the same database, a
 * claim is a lease (see `leaseSeconds`). A database that cannot answer for now is 503 with
 * `Retry-After`, and the key stays free.
 *
 * @example
 * import { db } from './db.js';
 * import { idempotencyKeys } from './tables.js';
 * new JsonApi({
 *   transaction: drizzleTransaction(db),
 *   idempotency: { store: drizzleIdempotency(db, idempotencyKeys), scope: (ctx) => ctx.getAttribute('user') },
 * });
 */
export function drizzleIdempotency<S extends Record<string, unknown>>(
  db: DrizzleDatabase<S>,
  table: IdempotencyKeysTable,
  options: LeaseOptions = {},
): IdempotencyStore {
  const t = table as unknown as KeyColumns<PgColumn> & PgTable;
  const keys = db as unknown as KeyStatements;
  const sqlite = isSqliteDatabase(db);
  // On SQLite, a key statement must not land inside another request's open transaction.
  const outside = <T>(statement: () => PromiseLike<T>): Promise<T> =>
    sqlite ? sqliteTurn(db, async () => statement()) : Promise.resolve(statement());
  const held = (key: string, holder: string) => and(eq(t.key, key), eq(t.holder, holder));
  const mysql = isMysqlDatabase(db);
  /** Whether `statement` wrote one row: on MySQL (no `returning`) by the rows it matched. */
  const one = async (statement: Returning) =>
    (mysql ? affectedRows(await statement) : (await statement.returning({ key: t.key })).length) === 1;
  const statements: KeyTable<object> = {
    forgetBefore: (time) => outside(() => keys.delete(table).where(lt(t.createdAt, time))),
    // Taken already: no row, no error. MySQL has no `on conflict`; `insert ignore` skips a duplicate key.
    insert: (row) =>
      outside(async () =>
        mysql
          ? affectedRows(await keys.insert(table).ignore().values(row)) === 1
          : one(keys.insert(table).values(row).onConflictDoNothing()),
      ),
    find: async (key) => (await outside(() => keys.select().from(table).where(eq(t.key, key))))[0],
    takeOver: (key, fingerprint, before, now, holder) =>
      outside(() =>
        one(
          keys
            .update(table)
            .set({ createdAt: now, holder })
            .where(
              and(
                eq(t.key, key),
                eq(t.fingerprint, fingerprint),
                isNull(t.status),
                eq(t.written, 0),
                lt(t.createdAt, before),
              ),
            ),
        ),
      ),
    complete: (key, holder, status, response) =>
      outside(() => one(keys.update(table).set({ status, response }).where(held(key, holder)))),
    release: (key, holder) =>
      outside(() => keys.delete(table).where(and(held(key, holder), isNull(t.status), eq(t.written, 0)))),
    // In the request's transaction (its turn, on SQLite): no turn of its own.
    mark: (transaction, key, holder) =>
      one((transaction as KeyStatements).update(table).set({ written: 1 }).where(held(key, holder))),
  };
  return leasedIdempotency('drizzleIdempotency', db, statements, whenDrizzleUnavailable, options);
}

export type { LeaseOptions as DrizzleIdempotencyOptions } from 'jsonapi-gen/internal';
