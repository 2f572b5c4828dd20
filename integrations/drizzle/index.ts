/**
 * Drizzle integration: back JSON:API resources by a host's Drizzle tables (SQLite through
 * better-sqlite3, PostgreSQL through node-postgres). In progress: README.md lists what it holds
 * and what it does not yet.
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
