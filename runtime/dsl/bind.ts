import type { Context } from './context.js';
import type { ResourceDefinition, ResourceSchema } from './resource.js';

/** The data-layer part of a `ResourceDefinition`: every method and loader record is optional. */
export type DataLayer<M, Q> = Omit<ResourceDefinition<M, Q>, keyof ResourceSchema<M>>;

/** Methods a data layer may have, bound to it so that class instances keep their `this`. */
const METHODS = [
  'find',
  'findMany',
  'delete',
  'query',
  'results',
  'paginate',
  'paginateCursor',
  'count',
  'countRelated',
  'loadRelated',
  'queryRelated',
  'create',
  'update',
  'addToRelationship',
  'removeFromRelationship',
  'where',
  'orderBy',
  'can',
  'versionOf',
] as const;

/** Records a data layer may have, taken as they are (`existence` is shared by identity). */
const RECORDS = ['related', 'customFilters', 'customSorts', 'composableFilters', 'existence'] as const;

/**
 * A resource served by `api.resource()`: the schema's declaration, the data layer's methods
 * and the serializer generated code writes for it. Generated `xResource(dataLayer)` functions
 * call it; the data layer may be a plain object or a class instance. It is counted only where
 * the schema's Index declares `countable()` (`countOnlyWhereDeclared`): the schema, not the data
 * layer, decides what is counted.
 *
 * @example
 * import { tags } from './schema.js';
 * import { store } from './store.js';
 * declare const api: JsonApi;
 * api.resource(bindResource(tags, store.tags, (tag: { name: string }) => ({ name: tag.name })));
 */
export function bindResource<M, Q>(
  schema: ResourceSchema<M>,
  dataLayer: DataLayer<M, Q>,
  serializeAttributes?: (model: M, context: Context) => object,
): ResourceDefinition<M, Q> {
  const definition: ResourceDefinition<M, Q> = {
    type: () => schema.type(),
    fields: () => schema.fields(),
    endpoints: () => schema.endpoints(),
    filters: () => schema.filters?.() ?? [],
    sorts: () => schema.sorts?.() ?? [],
    meta: () => schema.meta?.() ?? [],
    // The schema decides what is counted: the registry counts only where the Index declares countable().
    countOnlyWhereDeclared: true,
  };
  if (schema.getId) definition.getId = schema.getId.bind(schema);
  if (schema.validate) definition.validate = schema.validate;
  if (serializeAttributes)
    definition.serializeAttributes = serializeAttributes as (model: M, context: Context) => Record<string, unknown>;
  const target = definition as unknown as Record<string, unknown>;
  const source = dataLayer as Record<string, unknown>;
  for (const name of METHODS) {
    const method = source[name];
    if (typeof method === 'function') target[name] = method.bind(dataLayer);
  }
  for (const name of RECORDS) if (source[name] !== undefined) target[name] = source[name];
  return definition;
}
