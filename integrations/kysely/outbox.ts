/**
 * A transactional outbox in a table of the database: `outboxMigration()` makes it,
 * `kyselyOutbox(db, { types })` (the API's `outbox` option) inserts one row per successful
 * write on the request's transaction, and the host serves the table read-only as an ordinary
 * resource of `defineStore` (see docs/recipes/outbox-worker.md).
 */
import { type Kysely, type Migration, sql } from 'kysely';
import type { Outbox } from 'jsonapi-gen';
import type { AnyDatabase } from './any-database.js';
import { CompiledStatements } from './compiled.js';
import { dialectOf } from './dialect.js';
import { mysqlDateTime } from './mysql-values.js';
import { executorFor } from './transaction.js';

/** The default table name. */
const TABLE = 'jsonapi_outbox';

/** An entry's row, as the table's columns name it. */
interface OutboxRow {
  action: string;
  resource_type: string;
  resource_id: string;
  /** The member names, as a JSON array. */
  changed: string;
  occurred_at: string;
}

/**
 * The migration that creates the outbox table (add it to your migrations): `id` an
 * autoincrementing integer key (`serial` on PostgreSQL), `action`, `resource_type`,
 * `resource_id`, `changed` (the member names as JSON array text), `occurred_at` (ISO 8601 text
 * on SQLite, `timestamptz` on PostgreSQL, `datetime(3)` holding UTC on MySQL), and an index on
 * `resource_type, resource_id` (on MySQL, which indexes text only to a length, `varchar(255)`).
 *
 * @example
 * import type { Migration } from 'kysely';
 * declare const initial: Migration; // your first migration
 * const migrations: Record<string, Migration> = { '0001_initial': initial, '0002_outbox': outboxMigration() };
 */
export function outboxMigration(table = TABLE): Migration {
  return {
    async up(db: Kysely<AnyDatabase>) {
      const dialect = dialectOf(db);
      const sqlite = dialect === 'sqlite';
      const mysql = dialect === 'mysql';
      const indexed = mysql ? 'varchar(255)' : 'text';
      await db.schema
        .createTable(table)
        .ifNotExists()
        .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('action', mysql ? 'varchar(16)' : 'text', (c) => c.notNull())
        .addColumn('resource_type', indexed, (c) => c.notNull())
        .addColumn('resource_id', indexed, (c) => c.notNull())
        .addColumn('changed', 'text', (c) => c.notNull())
        .addColumn('occurred_at', sqlite ? 'text' : mysql ? 'datetime(3)' : 'timestamptz', (c) => c.notNull())
        .$call((t) => (mysql ? t.modifyEnd(sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`) : t))
        .execute();
      await db.schema
        .createIndex(`${table}_resource_index`)
        .ifNotExists()
        .on(table)
        .columns(['resource_type', 'resource_id'])
        .execute();
    },
    async down(db: Kysely<AnyDatabase>) {
      await db.schema.dropTable(table).ifExists().execute();
    },
  };
}

/** Options of `kyselyOutbox`. */
export interface KyselyOutboxOptions {
  /** The resource types whose writes are recorded. */
  types: readonly string[];
  /** Default `jsonapi_outbox`. */
  table?: string;
}

/**
 * The API's `outbox` on `db`, in the table `outboxMigration()` creates: each entry one insert
 * on the request's transaction (`kyselyTransaction(db)`), so it commits or rolls back with the
 * write.
 *
 * @example
 * import { db } from './db.js';
 * new JsonApi({ transaction: kyselyTransaction(db), outbox: kyselyOutbox(db, { types: ['articles'] }) });
 */
export function kyselyOutbox(db: Kysely<AnyDatabase>, options: KyselyOutboxOptions): Outbox {
  const table = options.table ?? TABLE;
  // One statement for every entry: compiled once, then run with each entry's values.
  const statements = new CompiledStatements(db);
  const shape = `outbox insert ${JSON.stringify(table)}`;
  return {
    types: options.types,
    record: async (entry, context) => {
      const row: OutboxRow = {
        action: entry.action,
        resource_type: entry.type,
        resource_id: entry.id,
        changed: JSON.stringify(entry.changed),
        // MySQL's DATETIME takes no zone: the instant in UTC.
        occurred_at: dialectOf(db) === 'mysql' ? (mysqlDateTime(entry.occurredAt) as string) : entry.occurredAt,
      };
      const values = [row.action, row.resource_type, row.resource_id, row.changed, row.occurred_at];
      await statements.execute(executorFor(db, context), shape, values, (on) =>
        (on as Kysely<Record<string, OutboxRow>>).insertInto(table).values(row),
      );
    },
  };
}
