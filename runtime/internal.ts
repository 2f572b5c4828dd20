/**
 * Helpers the runtime shares with its integrations (`@jsonapi-gen/kysely`, `@jsonapi-gen/prisma`, `@jsonapi-gen/drizzle`) and the generator
 * (`@jsonapi-gen/cli`), so that they can import the runtime by its package name. Not part of
 * the public API: any release may change them.
 *
 * @example
 * import { escape } from 'jsonapi-gen/internal';
 */
export { escape } from './write/payload.js';
export {
  declarationIssues,
  relatedIssues,
  schemaIssues,
  type DeclarationIssue,
  type DeclarationLike,
  type ResourceIssues,
} from './dsl/declaration-rules.js';
export { isResourceSchema } from './dsl/describe.js';
export { type HeldKey, heldKeyOf, keyInFlight } from './write/idempotency.js';
export { unstorable } from './write/unstorable.js';
export { uniqueViolation } from './write/unique-violation.js';
export { mysqlDateTime, utcText } from './core/date-time.js';
export {
  SQL_COMPARISON,
  boundValue,
  conditionShape,
  conditionValues,
  distinctKeys,
  globPattern,
  keyText,
  likeText,
  parseIntegerId,
  type ConditionParts,
  type LikePosition,
} from './query/sql-conditions.js';
export {
  conflictAborted,
  conflictCode,
  connectionLost,
  sqlClientError,
  invalidFilterValue,
  unavailable,
  unavailableCode,
  unavailableError,
  uniquePointerAt,
  whenUnavailable,
  type Written,
} from './write/sql-errors.js';
export { retryConflicts, type RetryRules } from './write/transaction-retry.js';
export { SqliteGroupCommit, type HoldConnection, type SqliteControl } from './write/sqlite-group-commit.js';
export {
  type KeyRow,
  type KeyTable,
  type LeaseOptions,
  leasedIdempotency,
  markHeldKey,
} from './write/idempotency-lease.js';
export { type KeyLookup, countedExistence, goneError, relatedKeyOf } from './write/store-keys.js';
