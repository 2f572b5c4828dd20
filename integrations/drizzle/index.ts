/**
 * Drizzle integration: back JSON:API resources by a host's Drizzle tables (SQLite through
 * better-sqlite3, PostgreSQL through node-postgres, MySQL and MariaDB through mysql2), reads
 * and writes. README.md lists what it
 * does and what it does not.
 *
 * @module @jsonapi-gen/drizzle
 */
export {
  defineStore,
  TableQuery,
  type DrizzleDataLayer,
  type DrizzleStore,
  type DrizzleStoreOptions,
  type Model,
} from './store.js';
export {
  type AnyTableMapping,
  type ColumnKey,
  type ColumnOf,
  type RelationshipMapping,
  type TableKey,
  type TableMapping,
  type ThroughMapping,
  type ToManyMapping,
  type ToOneMapping,
  type UntypedTableMapping,
  type WriteOperation,
  parseIntegerId,
} from './mapping.js';
export {
  type CheckedTableMapping,
  type DeclaredRelation,
  type FittingColumn,
  type ResourceMapping,
  type StoreMapping,
  type StoreModel,
  type TableMappings,
  type WithCustomFilters,
  type WithCustomSorts,
} from './checked.js';
export { likeText, type LikePosition } from 'jsonapi-gen/internal';
/**
 * The write side, as functions over a Drizzle database and a resource's table and columns
 * (`WriteTable`): create, update, delete, to-many add, remove and replace, `If-Match`
 * versions, server-set values, and the existence check of related ids.
 *
 * @example
 * import { db } from './db.js';
 * import { tags } from './tables.js';
 * declare const ctx: Context;
 * const table: WriteTable = { type: 'tags', table: tags, id: tags.id, attributes: { name: tags.name } };
 * await createRow(db, table, { attributes: { name: 'json' }, relationships: {} }, ctx);
 */
export {
  type ExistenceMember,
  type ParseId,
  type Row,
  type ToManyWrite,
  type WriteTable,
  changeToMany,
  createRow,
  deleteRow,
  drizzleExistence,
  updateRow,
} from './writes.js';
/**
 * One request, one transaction: `drizzleTransaction(db)` for `new JsonApi({ transaction })`,
 * `withDrizzleTransaction` for host code; statements run on it through `databaseFor(db, ctx)`.
 *
 * @example
 * import { db } from './db.js';
 * const api = new JsonApi({ transaction: drizzleTransaction(db), extensions: [atomic()] });
 */
export {
  type DrizzleDatabase,
  type DrizzleTransactionOptions,
  databaseFor,
  drizzleTransaction,
  sqliteTurn,
  withDrizzleTransaction,
} from './transaction.js';
/**
 * Idempotency keys any process can read, in the Kysely store's `jsonapi_idempotency_keys` table.
 *
 * @example
 * import { db } from './db.js';
 * import { idempotencyKeys } from './tables.js';
 * new JsonApi({ transaction: drizzleTransaction(db), idempotency: { store: drizzleIdempotency(db, idempotencyKeys) } });
 */
export { type DrizzleIdempotencyOptions, type IdempotencyKeysTable, drizzleIdempotency } from './idempotency.js';
/**
 * A transactional outbox: one row per successful write of the given types, inserted in the
 * write's transaction into a table the host declares.
 *
 * @example
 * import { db } from './db.js';
 * import { outbox } from './tables.js';
 * new JsonApi({ transaction: drizzleTransaction(db), outbox: drizzleOutbox(db, outbox, { types: ['articles'] }) });
 */
export { type DrizzleOutboxOptions, type OutboxTable, drizzleOutbox } from './outbox.js';
/**
 * What a Drizzle statement threw, as the runtime's JSON:API errors.
 *
 * @example
 * import { db } from './db.js';
 * import { tags } from './tables.js';
 * await runDrizzle(() => db.insert(tags).values({ name: 'json' })); // a taken name: 409
 */
export { driverError, drizzleError, runDrizzle, whenDrizzleUnavailable } from './errors.js';
