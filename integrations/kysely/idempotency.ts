/**
 * Idempotency keys in a table of the database, so that any process can answer a retry: a claim
 * is one `insert ... on conflict do nothing` (`insert ignore` on MySQL; atomic on each), the response is
 * stored when the request ends, and keys older than `ttlSeconds` are forgotten. A claim is a
 * lease, marked written by `kyselyTransaction` on the same database: the rules are the
 * runtime's (`leasedIdempotency` of `jsonapi-gen/internal`), the statements here.
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import type { IdempotencyStore } from 'jsonapi-gen';
import { type HeldKey, type KeyTable, type LeaseOptions, leasedIdempotency, markHeldKey } from 'jsonapi-gen/internal';
import { dialectOf } from './dialect.js';
import { whenUnavailable } from './errors.js';

/** The default table name. */
const TABLE = 'jsonapi_idempotency_keys';

/** A key's row, as the table's columns name it. */
interface KeyRow {
  key: string;
  fingerprint: string;
  created_at: number;
  status: number | null;
  response: string | null;
  holder: string | null;
  written: number;
}

/**
 * The migration that creates the keys table (add it to your migrations).
 *
 * @example
 * import type { Migration } from 'kysely';
 * declare const initial: Migration; // your first migration
 * const migrations: Record<string, Migration> = { '0001_initial': initial, '0002_idempotency': idempotencyMigration() };
 */
export function idempotencyMigration(table = TABLE): Migration {
  return {
    async up(db: Kysely<AnyDatabase>) {
      // MySQL indexes text only to a length, and its `text` holds 64 KB: a scoped key gets the
      // most InnoDB indexes in utf8mb4 (768 characters; the key itself is at most 255), a
      // stored response up to 4 GB.
      const mysql = dialectOf(db) === 'mysql';
      await db.schema
        .createTable(table)
        .ifNotExists()
        .addColumn('key', mysql ? 'varchar(768)' : 'text', (c) => c.primaryKey())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('response', mysql ? sql`longtext` : 'text')
        .addColumn('holder', 'text')
        .addColumn('written', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex(`${table}_created_at_index`).ifNotExists().on(table).column('created_at').execute();
    },
    async down(db: Kysely<AnyDatabase>) {
      await db.schema.dropTable(table).ifExists().execute();
    },
  };
}

/** Options of `kyselyIdempotency`. */
export interface KyselyIdempotencyOptions extends LeaseOptions {
  /** Default `jsonapi_idempotency_keys`. */
  table?: string;
}

/**
 * Marks the key the request of `held` is served under as written, inside the request's
 * transaction on `db` (`executor`), when its store keeps keys in `db`. Throws 409 when another
 * retry has taken the claim over (this request outlived its lease), so that nothing is written.
 */
export function markWritten(
  db: Kysely<AnyDatabase>,
  held: HeldKey | undefined,
  executor: Kysely<AnyDatabase>,
): Promise<void> {
  return markHeldKey(db, held, executor);
}

/**
 * An `IdempotencyStore` on `db`, in the table `idempotencyMigration()` creates. Its statements
 * run outside the request's transaction: a claim is visible to other processes at once. With
 * `kyselyTransaction(db)` on the same database, a claim is a lease (see `leaseSeconds`).
 * A database that cannot answer for now is 503 with `Retry-After`, and the key stays free.
 *
 * @example
 * import { db } from './db.js';
 * new JsonApi({ idempotency: { store: kyselyIdempotency(db), scope: (ctx) => ctx.getAttribute('user') } });
 */
export function kyselyIdempotency(db: Kysely<AnyDatabase>, options: KyselyIdempotencyOptions = {}): IdempotencyStore {
  const table = options.table ?? TABLE;
  const keys = db as Kysely<Record<string, KeyRow>>;
  const statements: KeyTable<Kysely<AnyDatabase>> = {
    forgetBefore: (time) => keys.deleteFrom(table).where('created_at', '<', time).execute(),
    async insert(row) {
      const [inserted] = await keys
        .insertInto(table)
        .values({
          key: row.key,
          fingerprint: row.fingerprint,
          created_at: row.createdAt,
          status: null,
          response: null,
          holder: row.holder,
          written: 0,
        })
        .$call((insert) =>
          // Taken already: no row, no error. MySQL has no `on conflict`; `insert ignore` skips a duplicate key.
          dialectOf(db) === 'mysql'
            ? insert.ignore()
            : insert.onConflict((conflict) => conflict.column('key').doNothing()),
        )
        .execute();
      return inserted !== undefined && inserted.numInsertedOrUpdatedRows === 1n;
    },
    async find(key) {
      const row = await keys.selectFrom(table).selectAll().where('key', '=', key).executeTakeFirst();
      return row && { ...row, createdAt: Number(row.created_at) };
    },
    async takeOver(key, fingerprint, before, now, holder) {
      const [taken] = await keys
        .updateTable(table)
        .set({ created_at: now, holder })
        .where('key', '=', key)
        .where('fingerprint', '=', fingerprint)
        .where('status', 'is', null)
        .where('written', '=', 0)
        .where('created_at', '<', before)
        .execute();
      return taken !== undefined && taken.numUpdatedRows === 1n;
    },
    complete: (key, holder, status, response) =>
      keys.updateTable(table).set({ status, response }).where('key', '=', key).where('holder', '=', holder).execute(),
    release: (key, holder) =>
      keys
        .deleteFrom(table)
        .where('key', '=', key)
        .where('holder', '=', holder)
        .where('status', 'is', null)
        .where('written', '=', 0)
        .execute(),
    async mark(executor, key, holder) {
      const [marked] = await (executor as Kysely<Record<string, KeyRow>>)
        .updateTable(table)
        .set({ written: 1 })
        .where('key', '=', key)
        .where('holder', '=', holder)
        .execute();
      return marked !== undefined && marked.numUpdatedRows === 1n;
    },
  };
  return leasedIdempotency('kyselyIdempotency', db, statements, whenUnavailable, options);
}
