import type { Context } from './context.js';
import type { Ability, AnyEndpoint } from './endpoints.js';
import type { Attribute, Relationship, ToMany, ToOne } from './fields.js';
import type { Filter, FilterValue, Sort, SortDirection } from './filters.js';
import type { MaybePromise } from '../core/types.js';
import type { ConditionPath, CountPath, FilterCondition } from './operators.js';
import type { ResourceIdentifier, WriteValues } from '../core/vocabulary.js';
import type { Problem } from './hooks.js';
import type { AnyMeta } from './meta.js';

/**
 * A resource's cross-field validation as the runtime calls it (a method type, so a validator
 * may annotate the values and the stored model with the resource's generated types).
 */
export type Validator = {
  bivariant(
    values: WriteValues,
    stored: unknown,
    context: Context,
  ): MaybePromise<readonly Problem[] | undefined | void>;
}['bivariant'];

/** Any field of a resource. */
export type AnyField = Attribute | ToOne | ToMany;

/**
 * What the runtime needs to know of a resource besides its data: its type, fields, endpoints,
 * filters and sorts. `defineResource` builds one; generated code builds one per resource.
 */
export interface ResourceSchema<M = unknown> {
  type(): string;
  fields(): readonly AnyField[];
  endpoints(): readonly AnyEndpoint[];
  filters?(): readonly Filter[];
  sorts?(): readonly Sort[];
  /** The meta members of each resource object (`defineResource`'s `meta`). */
  meta?(): readonly AnyMeta[];
  /** The id of a model as a string; defaults to `String(model.id)`. */
  getId?(model: M, context: Context): string;
  /**
   * All attributes of a model, already in their JSON form. Generated code supplies this as
   * straight-line code; without it the runtime reads each attribute through its getter.
   */
  serializeAttributes?(model: M, context: Context): Record<string, unknown>;
  /** The resource's cross-field validation (`defineResource`'s `validate`). */
  validate?: Validator;
}

/** Finds one model by id (Show, Delete, related endpoints). */
export interface Findable<M = unknown> {
  find(id: string, context: Context): MaybePromise<M | null | undefined>;
  /**
   * Optional: the models of `ids` (at most 100, distinct), in the same order, null where there
   * is none the request may see: exactly what `find` would say of each. With it, written
   * relationship linkage is checked with one call per related type rather than one `find` per
   * identifier.
   *
   * @example
   * type Tag = { id: string; name: string };
   * declare function tagsByIds(ids: readonly string[]): Promise<Map<string, Tag>>; // one query
   * const tags: Findable<Tag> = {
   *   find: async (id) => (await tagsByIds([id])).get(id),
   *   findMany: async (ids) => { const rows = await tagsByIds(ids); return ids.map((id) => rows.get(id) ?? null); },
   * };
   */
  findMany?(ids: readonly string[], context: Context): MaybePromise<ReadonlyArray<M | null | undefined>>;
  /**
   * Optional, beside `findMany`: this data layer's place in an existence check it shares with
   * other data layers (the resources of one store), named `member` there. When a write links to
   * several related types whose data layers name the same `check`, their linkage is checked with
   * one call of it (one round trip) instead of one `findMany` per type.
   */
  existence?: { readonly check: SharedExistence; readonly member: string };
}

/** One type's ids in a `SharedExistence` call. */
export interface ExistenceLookup {
  /** The `member` a data layer names itself by in `Findable.existence`. */
  readonly member: string;
  /** Distinct ids, at most 100. */
  readonly ids: readonly string[];
}

/**
 * Tells, for the ids of several resource types at once, which name a model the request may see:
 * shared by the data layers that name it in `Findable.existence` (the Kysely store gives one
 * per store, answered by one statement when every id exists).
 */
export interface SharedExistence {
  /**
   * For each lookup, in order, whether each of its ids exists: exactly what the `findMany` of
   * the data layer named `member` would say (a model, or null), scopes included.
   */
  exist(lookups: readonly ExistenceLookup[], context: Context): MaybePromise<ReadonlyArray<readonly boolean[]>>;
}

/** Deletes a model that `find` returned (Delete). */
export interface Deletable<M = unknown> {
  delete(model: M, context: Context): MaybePromise<void>;
}

/** Starts a query and runs it after filters, sorts and pagination applied (Index). */
export interface Listable<M = unknown, Q = unknown> {
  query(context: Context): MaybePromise<Q>;
  results(query: Q, context: Context): MaybePromise<readonly M[]>;
}

/** One page of a collection, by offset. */
export interface OffsetPagination {
  readonly offset: number;
  readonly limit: number;
}

/** Restricts a query to one page (an Index with `paginate()`). */
export interface Paginatable<Q = unknown> {
  paginate(query: Q, pagination: OffsetPagination, context: Context): MaybePromise<Q>;
}

/** A value of a cursor: a sort field's value as served (text, a number), or the id. */
export type CursorValue = string | number;

/**
 * One page by keyset (cursor pagination): the rows in the order `sorts` gives (each direction
 * as written, the id last), after the row whose values of those fields are `after` (none: from
 * the first row), at most `limit` of them.
 *
 * @example
 * const page: CursorPage = { sorts: [{ field: 'createdAt', direction: 'desc' }, { field: 'id', direction: 'asc' }], after: ['2024-01-01T08:00:00.000Z', '7'], limit: 21 };
 */
export interface CursorPage {
  /** The order, the id last; a count sort (`SortWithCount`) carries the relationship it counts. */
  readonly sorts: ReadonlyArray<{
    readonly field: string;
    readonly direction: SortDirection;
    readonly count?: CountPath;
  }>;
  readonly after?: readonly CursorValue[];
  readonly limit: number;
}

/**
 * Pages by keyset for cursor pagination (`Index.make().cursor()`): orders `query` by the page's
 * sorts and keeps the rows after its boundary, up to its limit. The runtime reverses the
 * directions for `page[before]` and reads one row more than the page size, to know whether
 * there are more.
 */
export interface CursorPaginatable<Q = unknown> {
  paginateCursor(query: Q, page: CursorPage, context: Context): MaybePromise<Q>;
}

/**
 * Counts a filtered query before pagination: paginated Index responses then carry a `last` link
 * and the total in `meta`, unless the Index declares `countable(false)`.
 *
 * @example
 * const layer: Countable<readonly { id: string }[]> = { count: (rows) => rows.length };
 */
export interface Countable<Q = unknown> {
  count(query: Q, context: Context): MaybePromise<number>;
  /**
   * True for a data layer whose count should run only where the Index declares `countable()`
   * (the Kysely store sets it: a count is one more statement per list).
   */
  readonly countOnlyWhereDeclared?: boolean;
}

/**
 * A method type written so that it compares its parameters bivariantly, as method declarations
 * do: a data layer of a richer model than the generated one still fits `DataLayers`.
 */
type Method<F extends (...args: never[]) => unknown> = {
  bivariant(...args: Parameters<F>): ReturnType<F>;
}['bivariant'];

/**
 * Reads each relationship in batches, typed per relationship: `related.author(models)` gives,
 * in the same order, the related model or null of each model (to-one) or an array each
 * (to-many). One call per relationship per include level, never one per row. `R` maps each
 * relationship name to what one model's entry is (`PeopleModel | null`, `readonly TagsModel[]`).
 * The relationship's declaration comes third, for loaders that serve several alike.
 *
 * @example
 * type Article = { id: string; authorId: string };
 * type Person = { id: string; name: string };
 * declare const people: Map<string, Person>;
 * const loaders: RelatedLoaders<Article, { author: Person | null }> = {
 *   related: { author: async (articles) => articles.map((a) => people.get(a.authorId) ?? null) },
 * };
 */
export interface RelatedLoaders<M, R extends object> {
  related: {
    [K in keyof R]: Method<
      (models: readonly M[], context: Context, relationship: Relationship) => MaybePromise<ReadonlyArray<R[K]>>
    >;
  };
  /**
   * Optional: a query of the related resource's data layer holding `model`'s related rows, so
   * that `GET /{type}/{id}/{to-many}` takes the related type's filters, sorts and pagination.
   */
  queryRelated?(relationship: Relationship, model: M, context: Context): MaybePromise<unknown>;
}

/**
 * Implements the schema's `Where` and `WhereCount` filters and the request's boolean groups:
 * narrow `query` by one `FilterCondition`. A `Condition` is `field op value` (a to-one
 * relationship's field compares the related id; a path `relationship.attribute` keeps resources
 * with a related resource that matches, within that resource's own scope; a `count` compares
 * the number of related resources the request may see). A group is `and`, `or` or `not` of
 * conditions (`not` over a to-many path: no related resource matches); a leaf on a null value
 * is false, so its `not` is true. Called once per top-level clause; together they all hold.
 * `composableFilters` names the custom filters `where` can also take inside a group (as a
 * `CustomCondition`); others are refused there (400) rather than applied to the whole query.
 *
 * @example
 * type Article = { title: string; status: string };
 * declare function compare(actual: unknown, op: Operator, value: Condition['value']): boolean;
 * const holds = (row: Article, c: FilterCondition<'title' | 'status'>): boolean => {
 *   if (isConditionGroup(c)) {
 *     const each = c.conditions.map((d) => holds(row, d));
 *     return c.op === 'or' ? each.some(Boolean) : c.op === 'and' ? each.every(Boolean) : !each.every(Boolean);
 *   }
 *   return c.op !== 'custom' && compare(row[c.field], c.op, c.value);
 * };
 * const layer: Filterable<Article[], 'title' | 'status'> = {
 *   where: (rows, condition) => rows.filter((row) => holds(row, condition)),
 * };
 */
export interface Filterable<Q, F extends string, N extends string = string> {
  where(query: Q, condition: FilterCondition<F, N>, context: Context): MaybePromise<Q>;
  /** The custom filters `where` can apply inside `filter[or]` and `filter[not]` (default: none). */
  readonly composableFilters?: readonly N[];
}

/**
 * Counts each model's related resources of a countable to-many relationship
 * (`ToMany.countable()`, asked for with `withCount`): in the order of `models`, only what the
 * request may see of the related resource, for the whole list at once (one statement, never one
 * per model).
 *
 * @example
 * type Article = { id: string };
 * declare const comments: Array<{ articleId: string }>;
 * const layer: RelationshipCounts<Article> = {
 *   countRelated: (relationship, articles) => articles.map((a) => comments.filter((c) => c.articleId === a.id).length),
 * };
 */
export interface RelationshipCounts<M = unknown> {
  countRelated(relationship: ToMany, models: readonly M[], context: Context): MaybePromise<readonly number[]>;
}

/** Implements the schema's `CustomFilter`s, one function each: `F` maps a name to its value type. */
export interface CustomFilterable<Q, F extends object> {
  customFilters: { [K in keyof F]: Method<(query: Q, value: F[K], context: Context) => MaybePromise<Q>> };
}

/**
 * Implements the schema's `SortBy` and `SortWithCount` sorts: order `query` by `field`. `path`:
 * for a sort on a to-one relationship's attribute (`author.name`), the relationship, related
 * type and attribute (a `ConditionPath`); for a count sort (`commentCount`), the to-many
 * relationship counted (a `CountPath`, which has no `attribute`), counting what the request may see.
 */
export interface Sortable<Q, F extends string> {
  orderBy(
    query: Q,
    field: F,
    direction: SortDirection,
    context: Context,
    path?: ConditionPath | CountPath,
  ): MaybePromise<Q>;
}

/** Implements the schema's `CustomSort`s, one function each. */
export interface CustomSortable<Q, S extends string> {
  customSorts: { [K in S]: Method<(query: Q, direction: SortDirection, context: Context) => MaybePromise<Q>> };
}

/**
 * The types generated code states for one resource, gathered for typed integrations: the
 * model the serializer reads, what each relationship loader gives per model, the custom filters
 * (with their value types) and sorts the data layer implements, and whether `can()` is used.
 *
 * @example
 * import type { KyselyDataLayer } from '@jsonapi-gen/kysely';
 * import type { ArticlesTypes } from './generated/index.js';
 * import { store } from './store.js';
 * const layer: KyselyDataLayer<ArticlesTypes> = store.articles;
 */
export interface ResourceTypes {
  model: object;
  related: object;
  customFilters: object;
  customSorts: string;
  policy: boolean;
}

/**
 * The policy the schema's `can(ability)` callbacks consult: whether the request may do
 * `ability` to `model`.
 *
 * @example
 * const policy: Authorizable<{ authorId: number }> = {
 *   can: (ability, article, ctx) => ability !== 'delete' || String(article.authorId) === ctx.getAttribute('user'),
 * };
 */
export interface Authorizable<M> {
  can(ability: Ability, model: M, context: Context): MaybePromise<boolean>;
}

/**
 * Reads relationships in batches: one call per relationship per include level, never one per
 * row. The untyped form of `RelatedLoaders`, for data layers that serve any relationship alike.
 */
export interface Relatable<M = unknown> {
  /**
   * The related models of every model in `models`, in the same order: for a to-one
   * relationship a model or null each, for a to-many an array each.
   */
  loadRelated(relationship: Relationship, models: readonly M[], context: Context): MaybePromise<readonly unknown[]>;
  /**
   * Optional: a query of the related resource restricted to `model`'s related rows, so that
   * `GET /{type}/{id}/{to-many}` gets the related type's filters, sorts and pagination.
   */
  queryRelated?(relationship: Relationship, model: M, context: Context): MaybePromise<unknown>;
}

/**
 * Stores a new resource (Create) from checked values: attributes by name (defaults applied),
 * relationships as resource identifiers. Returns the stored model, with its id and every
 * server-set value, as Show would read it.
 */
export interface Creatable<M = unknown, V = WriteValues> {
  create(values: V, context: Context): MaybePromise<M>;
}

/**
 * Changes a model `find` returned (Update, and `PATCH` of a relationship): only the fields in
 * `values` change. Returns the model as Show would now read it.
 */
export interface Updatable<M = unknown, V = WriteValues> {
  update(model: M, values: V, context: Context): MaybePromise<M>;
}

/** Adds to and removes from a to-many relationship (`POST` / `DELETE` on its relationship URL). */
export interface ToManyMutable<M = unknown> {
  /** Adds identifiers that are not already members (the runtime leaves out existing ones). */
  addToRelationship(
    model: M,
    relationship: ToMany,
    identifiers: readonly ResourceIdentifier[],
    context: Context,
  ): MaybePromise<void>;
  /** Removes identifiers; ones that are not members are ignored. */
  removeFromRelationship(
    model: M,
    relationship: ToMany,
    identifiers: readonly ResourceIdentifier[],
    context: Context,
  ): MaybePromise<void>;
}

/**
 * Optimistic concurrency: each model's version, which every write of the resource changes (its
 * attributes or its relationships). With it, reads of the resource carry an `ETag` naming the
 * version, and `PATCH`, `DELETE` and relationship writes honour `If-Match`: the runtime compares
 * the client's tag with the version of the model it read in the write's transaction (412 when
 * stale) and sets `context.ifMatch`; the data layer's write must then change the row only while
 * its version is still the one it read (`UPDATE ... WHERE version = ?`), and throw
 * `new JsonApiError(412)` otherwise, so that of concurrent writers with one tag only one wins.
 * The Kysely store does all of this for a mapping with `version: 'column'`.
 *
 * @example
 * const layer: Versioned<{ version: number }> = { versionOf: (article) => String(article.version) };
 */
export interface Versioned<M = unknown> {
  versionOf(model: M, context: Context): string;
}

/**
 * A model as a table-backed store gives it: the generated model's members, and any column more.
 *
 * @example
 * import type { ArticlesTypes } from './generated/index.js';
 * declare const article: StoreModel<ArticlesTypes>;
 * article.title; // string
 */
export type StoreModel<R extends ResourceTypes> = R['model'] & Record<string, unknown>;

/** The custom filters of `R` by name; any name for the untyped default (a data layer of no resource in particular). */
type FilterNames<R extends ResourceTypes> = ResourceTypes extends R ? string : keyof R['customFilters'] & string;

/**
 * Everything a store's data layer for resources of types `R` implements over its query type
 * `Q`: what the generated `XDataLayer` asks, typed by `R` (the generated `XTypes`), reads and
 * writes. The Kysely, Prisma and Drizzle stores each name it over their own query.
 *
 * @example
 * import type { TableQuery } from '@jsonapi-gen/drizzle';
 * import type { ArticlesTypes } from './generated/index.js';
 * type ArticlesLayer = StoreDataLayer<ArticlesTypes, TableQuery>;
 */
export type StoreDataLayer<R extends ResourceTypes, Q> = Findable<StoreModel<R>> &
  Creatable<StoreModel<R>> &
  Updatable<StoreModel<R>> &
  Deletable<StoreModel<R>> &
  ToManyMutable<StoreModel<R>> &
  Listable<StoreModel<R>, Q> &
  Paginatable<Q> &
  CursorPaginatable<Q> &
  Countable<Q> &
  RelatedLoaders<StoreModel<R>, R['related']> &
  RelationshipCounts<StoreModel<R>> &
  Filterable<Q, string, FilterNames<R>> &
  CustomFilterable<Q, R['customFilters']> &
  Sortable<Q, string> &
  CustomSortable<Q, R['customSorts']> &
  Partial<Versioned<StoreModel<R>>> &
  (R['policy'] extends true ? Authorizable<StoreModel<R>> : Partial<Authorizable<StoreModel<R>>>);

/** A resource as `api.resource()` takes it: its schema plus the data-layer methods it implements. */
export type ResourceDefinition<M = unknown, Q = unknown> = ResourceSchema<M> &
  Partial<
    Findable<M> &
      Deletable<M> &
      Listable<M, Q> &
      Paginatable<Q> &
      CursorPaginatable<Q> &
      Countable<Q> &
      Relatable<M> &
      Creatable<M> &
      Updatable<M> &
      ToManyMutable<M> &
      Versioned<M> &
      RelationshipCounts<M> &
      RelatedLoaders<M, Record<string, unknown>> &
      Filterable<Q, string> &
      CustomFilterable<Q, Record<string, FilterValue>> &
      Sortable<Q, string> &
      CustomSortable<Q, string> &
      Authorizable<M>
  >;

/** A resource schema that keeps the types of its declared fields (for generated model types). */
export interface DeclaredResource<
  M = unknown,
  F extends readonly AnyField[] = readonly AnyField[],
> extends ResourceSchema<M> {
  /** Type level only: the declared fields, in order. */
  readonly declaredFields?: F;
}

/**
 * What the `.get()` getter of the field at `index` of a declared resource reads from a model:
 * generated model types intersect it, so a model without it does not compile.
 *
 * @example
 * const articles = defineResource({
 *   type: 'articles',
 *   fields: [Attribute.make('wordCount').type('integer').get((article: { body: string | null }) => article.body?.split(' ').length ?? 0)],
 * });
 * type Needs = GetterModel<typeof articles, 0>; // { body: string | null }
 */
export type GetterModel<S, I extends number> = S extends { readonly declaredFields?: infer F }
  ? F extends readonly unknown[]
    ? F[I] extends { readonly modelRequirement?: infer R }
      ? unknown extends R
        ? unknown
        : R
      : unknown
    : unknown
  : unknown;

/** What `defineResource` takes. */
export interface ResourceSpec<M = unknown, F extends readonly AnyField[] = readonly AnyField[]> {
  type: string;
  fields?: F;
  endpoints?: readonly AnyEndpoint[];
  filters?: readonly Filter[];
  sorts?: readonly Sort[];
  /**
   * Meta members of each resource object, computed from the model (in `data` and `included`,
   * whatever sparse fieldsets ask).
   *
   * @example
   * defineResource({ type: 'articles', meta: [Meta.make('wordCount').type('integer').get((a: { body: string | null }) => a.body?.split(' ').length ?? 0)] });
   */
  meta?: readonly AnyMeta[];
  getId?: (model: M, context: Context) => string;
  /**
   * Cross-field validation of every create and update (REST and Atomic Operations, `PATCH` of a
   * relationship URL too): `values` holds the members sent (plus defaults on create), `stored`
   * the model being updated (undefined on create). Problems are answered with 422 at their
   * pointers, nothing written. Runs before the endpoint's `saving` hooks.
   *
   * @example
   * defineResource({
   *   type: 'articles',
   *   validate: (values, stored: { status: string; body: string | null } | undefined) => {
   *     const status = values.attributes.status ?? stored?.status;
   *     const body = 'body' in values.attributes ? values.attributes.body : stored?.body;
   *     return status === 'published' && !body ? [{ detail: 'A published article needs a body', pointer: '/data/attributes/body' }] : [];
   *   },
   * });
   */
  validate?: Validator;
}

/**
 * A resource schema from a plain description; spread a data layer into it to serve it.
 *
 * @example
 * const tags = defineResource({
 *   type: 'tags',
 *   fields: [Attribute.make('name').type('string')],
 *   endpoints: [Show.make(), Index.make()],
 * });
 * declare const api: JsonApi;
 * declare const tagStore: DataLayer<{ id: string; name: string }, unknown>;
 * api.resource({ ...tags, ...tagStore });
 */
export function defineResource<M = unknown, const F extends readonly AnyField[] = readonly AnyField[]>(
  spec: ResourceSpec<M, F>,
): DeclaredResource<M, F> {
  const fields = Object.freeze([...(spec.fields ?? [])]);
  const endpoints = Object.freeze([...(spec.endpoints ?? [])]);
  const filters = Object.freeze([...(spec.filters ?? [])]);
  const sorts = Object.freeze([...(spec.sorts ?? [])]);
  const meta = Object.freeze([...(spec.meta ?? [])]);
  const schema: DeclaredResource<M, F> = {
    type: () => spec.type,
    fields: () => fields,
    endpoints: () => endpoints,
    filters: () => filters,
    sorts: () => sorts,
    meta: () => meta,
  };
  if (spec.getId) schema.getId = spec.getId;
  if (spec.validate) schema.validate = spec.validate;
  return schema;
}
