/**
 * The runtime: the DSL builders (`defineResource`, `Attribute`, `ToOne`, `Index`, ...),
 * `JsonApi`, errors and `atomic()`, serving Fetch `Request`/`Response` with no dependencies.
 *
 * @module jsonapi-gen
 */
export { JsonApi, type JsonApiOptions } from './api.js';
export type {
  DataLayerCall,
  Instrumentation,
  RequestStart,
  RouteInfo,
  SpanOutcome,
  StageKind,
  StageStart,
  TraceSpan,
  TracedEndpoint,
} from './pipeline/instrumentation.js';
export { staleVersion } from './http/conditional.js';
export type { DocumentQuery, ResourceCollectionDocument, ResourceDocument, TypeRegistry } from './core/client-types.js';
export type { IdempotencyClaim, IdempotencyOptions, IdempotencyStore, StoredResponse } from './write/idempotency.js';
export type { Outbox, OutboxEntry } from './dsl/outbox.js';
export { bindResource, type DataLayer } from './dsl/bind.js';
export {
  Context,
  type AttributeOf,
  type ContextAttributes,
  type HandleOptions,
  type RequestAttributes,
} from './dsl/context.js';
export type { RequestTarget } from './http/target.js';
export {
  Attribute,
  Field,
  Relationship,
  ToMany,
  ToOne,
  type AttributeKind,
  type FieldWritePolicy,
  type Getter,
} from './dsl/fields.js';
export type {
  AfterCommitHook,
  CreateSavingHook,
  DeletingHook,
  Draft,
  ModelCheck,
  Problem,
  ResourceValidator,
  SavingResult,
  UpdateSavingHook,
  ValuesHook,
} from './dsl/hooks.js';
export {
  typedResources,
  type CheckedEndpoint,
  type CheckedField,
  type CheckedSpec,
  type CheckedTypes,
} from './dsl/checked.js';
export { Meta, type AnyMeta, type DocumentMetaGetter, type MetaKind, type MetaValues } from './dsl/meta.js';
export {
  Create,
  Delete,
  Endpoint,
  Index,
  Show,
  Update,
  WriteEndpoint,
  can,
  type Ability,
  type AnyEndpoint,
  type EndpointKind,
  type PaginationOptions,
  type Policy,
  type PolicyCallback,
} from './dsl/endpoints.js';
export {
  CustomFilter,
  CustomSort,
  Filter,
  Sort,
  SortBy,
  SortWithCount,
  Where,
  WhereCount,
  type FilterValue,
  type SortDirection,
} from './dsl/filters.js';
export {
  OPERATORS,
  defaultOperators,
  type Condition,
  type ConditionGroup,
  type ConditionPath,
  type ConditionValue,
  type CountPath,
  type CustomCondition,
  type FilterCondition,
  isConditionGroup,
  type Operator,
} from './dsl/operators.js';
export {
  defineResource,
  type DeclaredResource,
  type Validator,
  type GetterModel,
  type AnyField,
  type Authorizable,
  type CustomFilterable,
  type CustomSortable,
  type Filterable,
  type RelatedLoaders,
  type Sortable,
  type Countable,
  type RelationshipCounts,
  type Creatable,
  type ToManyMutable,
  type Versioned,
  type Updatable,
  type Deletable,
  type Findable,
  type ExistenceLookup,
  type SharedExistence,
  type Listable,
  type OffsetPagination,
  type Paginatable,
  type CursorPage,
  type CursorPaginatable,
  type CursorValue,
  type Relatable,
  type ResourceDefinition,
  type ResourceSchema,
  type ResourceSpec,
  type ResourceTypes,
  type StoreDataLayer,
  type StoreModel,
} from './dsl/resource.js';
export {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  JsonApiError,
  JsonApiErrors,
  MethodNotAllowedError,
  NotAcceptableError,
  NotFoundError,
  UnprocessableEntityError,
  UnsupportedMediaTypeError,
  type ErrorInit,
  type ErrorObject,
  type ErrorSource,
  type ErrorStatus,
} from './core/errors.js';
export { MEDIA_TYPE } from './http/negotiate.js';
export { dateTimeJson, dateTimeText, normalizeDateTime } from './core/date-time.js';
export { type HttpRequest, fromFetch, memoryRequest } from './http/request.js';
export { type HttpResult, toResponse } from './http/result.js';
export { DEFAULT_LIMITS, type Limits } from './core/limits.js';
export { ATOMIC_EXT, atomic, type AtomicOptions, type Extension, type ExtensionHost } from './atomic/operations.js';
export type { Linkage, ResourceIdentifier, ResourceObject, TopLevelDocument, WriteValues } from './core/vocabulary.js';
export type { VisibilityCallback } from './dsl/visibility.js';
export type { AttributeConstraints, AttributeValidator, StandardSchema } from './dsl/fields.js';
export {
  describeSchema,
  type AppliedBy,
  type AttributeDescription,
  type ConstraintsDescription,
  type CreateDescription,
  type EndpointDescription,
  type FilterDescription,
  type IndexDescription,
  type JsonValue,
  type MetaDescription,
  type PathDescription,
  type RelationshipDescription,
  type SchemaDescription,
  type ShowDescription,
  type SortDescription,
  type WriteEndpointDescription,
} from './dsl/describe.js';
export type { MaybePromise } from './core/types.js';
