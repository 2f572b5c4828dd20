import type { Context } from './context.js';
import type { AnyEndpoint } from './endpoints.js';
import type { Attribute, Relationship, ToMany, ToOne } from './fields.js';
import type { ResourceIdentifier } from './document.js';
import type { Filter, Sort } from './filters.js';
import type { WriteValues } from './payload.js';
import type { MaybePromise } from './types.js';

/** Any field of a resource. */
export type AnyField = Attribute | ToOne | ToMany;

/**
 * What the runtime needs to know of a resource besides its data: its type, fields, endpoints,
 * filters and sorts. `defineResource` builds one; generated code builds one per resource.
 */
export interface ResourceSchema<M = any> {
  type(): string;
  fields(): readonly AnyField[];
  endpoints(): readonly AnyEndpoint[];
  filters?(): readonly Filter[];
  sorts?(): readonly Sort[];
  /** A blank model for Create to fill. */
  newModel?(context: Context): M;
  /** The id of a model as a string; defaults to `String(model.id)`. */
  getId?(model: M, context: Context): string;
  /**
   * All attributes of a model, already in their JSON form. Generated code supplies this as
   * straight-line code; without it the runtime reads each attribute through its getter.
   */
  serializeAttributes?(model: M, context: Context): Record<string, unknown>;
}

/** Finds one model by id (Show, Delete, related endpoints). */
export interface Findable<M = any> {
  find(id: string, context: Context): MaybePromise<M | null | undefined>;
  /**
   * Optional: the models of `ids` (at most 100, distinct), in the same order, null where there
   * is none the request may see: exactly what `find` would say of each. With it, written
   * relationship linkage is checked with one call per related type rather than one `find` per
   * identifier.
   *
   * @example
   * findMany: async (ids) => { const rows = await byIds(ids); return ids.map((id) => rows.get(id) ?? null); }
   */
  findMany?(ids: readonly string[], context: Context): MaybePromise<ReadonlyArray<M | null | undefined>>;
}

/** Deletes a model that `find` returned (Delete). */
export interface Deletable<M = any> {
  delete(model: M, context: Context): MaybePromise<void>;
}

/** Starts a query and runs it after filters, sorts and pagination applied (Index). */
export interface Listable<M = any, Q = any> {
  query(context: Context): MaybePromise<Q>;
  results(query: Q, context: Context): MaybePromise<readonly M[]>;
}

/** One page of a collection, by offset. */
export interface OffsetPagination {
  readonly offset: number;
  readonly limit: number;
}

/** Restricts a query to one page (an Index with `paginate()`). */
export interface Paginatable<Q = any> {
  paginate(query: Q, pagination: OffsetPagination, context: Context): MaybePromise<Q>;
}

/** Counts a filtered query before pagination: gives `last` links and `meta.total`. */
export interface Countable<Q = any> {
  count(query: Q, context: Context): MaybePromise<number>;
}

/**
 * Reads relationships in batches: one call per relationship per include level, never one per row.
 */
export interface Relatable<M = any> {
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
export interface Creatable<M = any> {
  create(values: WriteValues, context: Context): MaybePromise<M>;
}

/**
 * Changes a model `find` returned (Update, and `PATCH` of a relationship): only the fields in
 * `values` change. Returns the model as Show would now read it.
 */
export interface Updatable<M = any> {
  update(model: M, values: WriteValues, context: Context): MaybePromise<M>;
}

/** Adds to and removes from a to-many relationship (`POST` / `DELETE` on its relationship URL). */
export interface ToManyMutable<M = any> {
  /** Adds identifiers that are not already members (the runtime leaves out existing ones). */
  addToRelationship(model: M, relationship: ToMany, identifiers: readonly ResourceIdentifier[], context: Context): MaybePromise<void>;
  /** Removes identifiers; ones that are not members are ignored. */
  removeFromRelationship(model: M, relationship: ToMany, identifiers: readonly ResourceIdentifier[], context: Context): MaybePromise<void>;
}

/** A resource as `api.resource()` takes it: its schema plus the data-layer methods it implements. */
export type ResourceDefinition<M = any, Q = any> = ResourceSchema<M> &
  Partial<
    Findable<M> &
      Deletable<M> &
      Listable<M, Q> &
      Paginatable<Q> &
      Countable<Q> &
      Relatable<M> &
      Creatable<M> &
      Updatable<M> &
      ToManyMutable<M>
  >;

/** What `defineResource` takes. */
export interface ResourceSpec<M = any> {
  type: string;
  fields?: readonly AnyField[];
  endpoints?: readonly AnyEndpoint[];
  filters?: readonly Filter[];
  sorts?: readonly Sort[];
  newModel?: (context: Context) => M;
  getId?: (model: M, context: Context) => string;
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
 * api.resource({ ...tags, ...tagStore });
 */
export function defineResource<M = any>(spec: ResourceSpec<M>): ResourceSchema<M> {
  const fields = Object.freeze([...(spec.fields ?? [])]);
  const endpoints = Object.freeze([...(spec.endpoints ?? [])]);
  const filters = Object.freeze([...(spec.filters ?? [])]);
  const sorts = Object.freeze([...(spec.sorts ?? [])]);
  const schema: ResourceSchema<M> = {
    type: () => spec.type,
    fields: () => fields,
    endpoints: () => endpoints,
    filters: () => filters,
    sorts: () => sorts,
  };
  if (spec.newModel) schema.newModel = spec.newModel;
  if (spec.getId) schema.getId = spec.getId;
  return schema;
}
