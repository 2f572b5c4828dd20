/**
 * Prisma integration: back JSON:API resources by the models of a Prisma Client 7 (driver
 * adapters, no query engine): `defineStore`, its transactions, errors and idempotency keys.
 * In progress: README.md lists what it holds and what it does not yet.
 *
 * @module @jsonapi-gen/prisma
 */
export {
  prismaWhere,
  type PrismaWhere,
  type WhereMapping,
  type WhereOptions,
  type WhereProvider,
  type WhereRelationship,
} from './conditions.js';
export {
  type AnyModelMapping,
  type FieldTypeName,
  type ModelMapping,
  type ModelName,
  type RelatedModel,
  type RelationField,
  type RelationMapping,
  type ScalarField,
  type ThroughRelation,
  type ToManyField,
  type ToManyRelation,
  type ToOneField,
  type ToOneRelation,
  type WriteOperation,
  parseIntegerId,
} from './mapping.js';
export {
  defineModelStore,
  defineStore,
  type PrismaDataLayer,
  type PrismaQuery,
  type PrismaStore,
  type PrismaStoreOptions,
  type UntypedResource,
} from './store.js';
export {
  type CheckedModelMapping,
  type FittingField,
  type ModelMappings,
  type ResourceMapping,
  type StoreMapping,
  type StoreModel,
  type WithCustomFilters,
  type WithCustomSorts,
} from './checked.js';
export {
  prismaError,
  retryable,
  runPrisma,
  unavailable,
  unavailableError,
  whenUnavailable,
  type Written,
} from './errors.js';
export {
  clientFor,
  prismaTransaction,
  withPrismaTransaction,
  type PrismaTransactional,
  type PrismaTransactionOptions,
} from './transaction.js';
export {
  changeToMany,
  createRecord,
  deleteRecord,
  integerId,
  prismaExistence,
  updateRecord,
  type ExistenceMember,
  type Row,
  type ToManyWrite,
  type WriteModel,
} from './writes.js';
export { prismaIdempotency, type PrismaIdempotencyOptions } from './idempotency.js';
export { prismaOutbox, type PrismaOutboxOptions } from './outbox.js';
export { zuluDateTimes } from './sqlite-dates.js';
export { likeText, type LikePosition } from 'jsonapi-gen/internal';
export { SQLITE_MAX_BIND_VALUES, sqliteAdapter } from './sqlite-adapter.js';
