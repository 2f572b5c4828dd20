/** From a loaded, validated schema to the plain IR the emitters read: each resource as the runtime describes it (`describeSchema`). */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import {
  type AttributeDescription,
  type EndpointDescription,
  type FilterDescription,
  type RelationshipDescription,
  type SchemaDescription,
  describeSchema,
} from 'jsonapi-gen';
import type {
  ApiModel,
  AttributeConstraintsModel,
  AttributeModel,
  Capability,
  EndpointsModel,
  ExtensionsModel,
  FilterModel,
  RelationshipModel,
  ResourceModel,
} from './ir.js';
import type { LoadedSchema } from './load.js';
import { camelCase, pascalCase } from './naming.js';

/**
 * The IR of `loaded` for output in `outDir` (the schema's path is taken relative to it). Both
 * paths are taken with symbolic links resolved: the generated headers and the schema import
 * must not depend on how the command line spelled them (through a linked folder, or not), or
 * one build's output would be stale for the next one's `--check`.
 */
export function modelFor(loaded: LoadedSchema, outDir: string): ApiModel {
  return buildModel(loaded, importPath(relative(canonicalPath(outDir), canonicalPath(loaded.file))));
}

/** `path`, absolute, with symbolic links resolved; a part that does not exist yet (an output directory) is kept as written. */
export function canonicalPath(path: string): string {
  const absolute = resolve(path);
  const missing: string[] = [];
  for (let at = absolute; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...missing.reverse());
    } catch {
      if (dirname(at) === at) return absolute;
      missing.push(basename(at));
    }
  }
}

/** A relative path as an import specifier: forward slashes, starting with `.`. */
function importPath(path: string): string {
  const posix = path.split('\\').join('/');
  return posix.startsWith('.') ? posix : `./${posix}`;
}

/** The IR of `loaded`; `schemaImport` and `schemaPath` are relative to the output directory. */
export function buildModel(loaded: LoadedSchema, schemaPath: string): ApiModel {
  const resources = loaded.resources
    .map(({ exportName, schema }) => resourceModel(exportName, describeSchema(schema)))
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  return {
    schemaPath,
    schemaImport: schemaPath.replace(/\.(m|c)?tsx?$/, (_, m: string | undefined) => `.${m ?? ''}js`),
    resources,
    extensions: toExtensions(loaded),
  };
}

/** The Atomic Operations extension's URI (the runtime's `ATOMIC_EXT`). */
export const ATOMIC_URI = 'https://jsonapi.org/ext/atomic';

function toExtensions(loaded: LoadedSchema): ExtensionsModel {
  const atomic = loaded.extensions?.find((e) => e.uri === ATOMIC_URI);
  return { exported: loaded.extensions !== undefined, atomic: atomic && { uri: atomic.uri, path: atomic.path } };
}

/** The IR of one resource, from the runtime's description of it. */
export function resourceModel(exportName: string, description: SchemaDescription): ResourceModel {
  const { type, filters, sorts } = description;
  const attributes = description.attributes.map(toAttribute);
  const relationships = description.relationships.map(toRelationship);
  const endpoints = toEndpoints(description.endpoints);
  const ofDataLayer = <K extends string>(list: ReadonlyArray<{ name: string; kind: K; appliedBy: string }>, kind: K) =>
    list.filter((d) => d.kind === kind && d.appliedBy === 'data layer').map((d) => d.name);
  const usesPolicy = description.endpoints.some((e) => e.abilities.length > 0);
  const queries = {
    whereFilters: ofDataLayer(filters, 'where'),
    countFilters: ofDataLayer(filters, 'count'),
    customFilters: ofDataLayer(filters, 'custom'),
    sortFields: ofDataLayer(sorts, 'field'),
    countSorts: ofDataLayer(sorts, 'count'),
    customSorts: ofDataLayer(sorts, 'custom'),
  };
  return {
    type,
    exportName,
    names: { pascal: pascalCase(type), camel: camelCase(type) },
    attributes,
    relationships,
    endpoints,
    filters: filters.map((f) => f.name),
    filterDetails: filters.map(toFilter),
    sorts: sorts.map((s) => s.name),
    ...queries,
    usesPolicy,
    hasGetId: description.getsId,
    clientIds: description.endpoints.some((e) => e.kind === 'create' && e.clientIds),
    capabilities: [
      ...capabilities(endpoints, relationships, queries.countSorts),
      ...(queries.whereFilters.length + queries.countFilters.length > 0 ? (['Filterable'] as const) : []),
      ...(queries.customFilters.length > 0 ? (['CustomFilterable'] as const) : []),
      ...(queries.sortFields.length + queries.countSorts.length > 0 ? (['Sortable'] as const) : []),
      ...(queries.customSorts.length > 0 ? (['CustomSortable'] as const) : []),
      ...(usesPolicy ? (['Authorizable'] as const) : []),
    ],
    meta: description.meta.map(({ name, kind, nullable }) => ({ name, kind, nullable })),
    documentMeta: {
      show: description.endpoints.some((e) => e.kind === 'show' && e.documentMeta),
      index: description.endpoints.some((e) => e.kind === 'index' && e.documentMeta),
    },
  };
}

/** A filter's description and value rule (`takesCommaList`: the runtime's own answer). */
function toFilter(filter: FilterDescription): FilterModel {
  const declares = filter.kind === 'subclass' ? undefined : filter.kind;
  const description = filter.description?.trim() || undefined;
  return {
    name: filter.name,
    declares,
    commaList: filter.takesCommaList,
    counts: filter.counts && { relationship: filter.counts.relationship, relatedType: filter.counts.relatedType },
    description,
    operators: filter.operators,
    caseInsensitive: filter.caseInsensitive,
  };
}

function toAttribute(attribute: AttributeDescription): AttributeModel {
  return {
    name: attribute.name,
    kind: attribute.kind,
    enumValues: [...attribute.enumValues],
    nullable: attribute.nullable,
    writable: attribute.writable,
    required: attribute.required,
    hasGetter: attribute.getter,
    hasWritePolicy: attribute.writePolicy,
    hasDefault: attribute.default !== undefined,
    constraints: toConstraints(attribute.constraints),
  };
}

/** JSON Schema's names for the declared bounds; a pattern with flags JSON Schema cannot carry (`i`, `m`, `s`) is left out rather than described wrongly. */
function toConstraints(declared: AttributeDescription['constraints']): AttributeConstraintsModel {
  const { minLength, maxLength, pattern, min, max } = declared;
  return {
    ...(minLength !== undefined && { minLength }),
    ...(maxLength !== undefined && { maxLength }),
    ...(pattern !== undefined && !/[ims]/.test(pattern.flags) && { pattern: pattern.source }),
    ...(min !== undefined && { minimum: min }),
    ...(max !== undefined && { maximum: max }),
  };
}

function toRelationship(relationship: RelationshipDescription): RelationshipModel {
  return {
    name: relationship.name,
    cardinality: relationship.cardinality,
    relatedType: relationship.relatedType,
    includable: relationship.includable,
    linkage: relationship.linkage,
    writable: relationship.writable,
    required: relationship.required,
    hasWritePolicy: relationship.writePolicy,
    countable: relationship.cardinality === 'many' && relationship.countable,
  };
}

function toEndpoints(list: readonly EndpointDescription[]): EndpointsModel {
  const index = list.find((e) => e.kind === 'index');
  const has = (kind: string) => list.some((e) => e.kind === kind);
  return {
    show: has('show'),
    index: index && {
      pagination: index.pagination && {
        defaultLimit: index.pagination.defaultLimit,
        maxLimit: index.pagination.maxLimit,
      },
      defaultSort: index.defaultSort,
      countable: index.countable === true,
      cursor: index.cursor,
    },
    create: has('create'),
    update: has('update'),
    delete: has('delete'),
    requiresIfMatch: list.some((e) => (e.kind === 'update' || e.kind === 'delete') && e.requiresIfMatch),
  };
}

/**
 * What the runtime checks at registration, in the order the data-layer interface lists it;
 * `countSorts` are the resource's `SortWithCount` sorts (a cursor page sorted by one needs counts).
 */
export function capabilities(
  endpoints: EndpointsModel,
  relationships: readonly RelationshipModel[],
  countSorts: readonly string[] = [],
): Capability[] {
  const needs: Capability[] = [];
  const writableToMany = endpoints.update && relationships.some((r) => r.cardinality === 'many' && r.writable);
  if (endpoints.show || endpoints.update || endpoints.delete) needs.push('Findable');
  if (endpoints.index) needs.push('Listable');
  if (endpoints.index?.pagination) needs.push('Paginatable');
  if (endpoints.index?.countable) needs.push('Countable');
  if (endpoints.index?.cursor) needs.push('CursorPaginatable');
  if (endpoints.delete) needs.push('Deletable');
  if (relationships.length > 0 && (endpoints.show || endpoints.index || writableToMany)) needs.push('Relatable');
  if (endpoints.create) needs.push('Creatable');
  if (endpoints.update) needs.push('Updatable');
  if (writableToMany) needs.push('ToManyMutable');
  // As the registry: counts on request (withCount), and the cursor values of a count sort.
  if (relationships.some((r) => r.countable) || (endpoints.index?.cursor && countSorts.length > 0))
    needs.push('RelationshipCounts');
  // A data layer may give versions wherever writes are (If-Match); must, where an endpoint requires it.
  if (endpoints.requiresIfMatch) needs.push('Versioned');
  else if (endpoints.update || endpoints.delete) needs.push('OptionallyVersioned');
  return needs;
}

/** How many endpoints the API enables. */
export function endpointCount(model: ApiModel): number {
  return model.resources.reduce((sum, r) => sum + Object.values(r.endpoints).filter(Boolean).length, 0);
}
