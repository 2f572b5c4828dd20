/** From a loaded, validated schema to the plain IR the emitters read. */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { AttributeKind, Operator } from 'jsonapi-gen';
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
import type { FieldLike, LoadedResource, LoadedSchema, NamedLike } from './load.js';
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
  const resources = loaded.resources.map(toResource).sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
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

function toResource({ exportName, schema }: LoadedResource): ResourceModel {
  const type = schema.type();
  const fields = schema.fields();
  const attributes = fields.filter((f) => f.cardinality === undefined).map(toAttribute);
  const relationships = fields.filter((f) => f.cardinality !== undefined).map(toRelationship);
  const endpoints = toEndpoints(schema.endpoints());
  const filters = schema.filters?.() ?? [];
  const sorts = schema.sorts?.() ?? [];
  const declared = (list: typeof filters, kind: string) => list.filter((d) => d.declares === kind && d.implementation === undefined).map((d) => d.name);
  const usesPolicy = schema.endpoints().some((e) => (e.abilities?.length ?? 0) > 0);
  const queries = {
    whereFilters: declared(filters, 'where'),
    customFilters: declared(filters, 'custom'),
    sortFields: declared(sorts, 'field'),
    customSorts: declared(sorts, 'custom'),
  };
  return {
    type,
    exportName,
    names: { pascal: pascalCase(type), camel: camelCase(type) },
    attributes,
    relationships,
    endpoints,
    filters: filters.map((f) => f.name),
    filterDetails: filters.map((f) => toFilter(f, attributes, relationships)),
    sorts: sorts.map((s) => s.name),
    ...queries,
    usesPolicy,
    hasGetId: typeof schema.getId === 'function',
    clientIds: schema.endpoints().some((e) => e.kind === 'create' && e.acceptsClientIds === true),
    capabilities: [
      ...capabilities(endpoints, relationships),
      ...(queries.whereFilters.length > 0 ? (['Filterable'] as const) : []),
      ...(queries.customFilters.length > 0 ? (['CustomFilterable'] as const) : []),
      ...(queries.sortFields.length > 0 ? (['Sortable'] as const) : []),
      ...(queries.customSorts.length > 0 ? (['CustomSortable'] as const) : []),
      ...(usesPolicy ? (['Authorizable'] as const) : []),
    ],
  };
}

/**
 * A filter's description and value rule. `commaList` follows the runtime's `takesCommaList`
 * (runtime/filter-lists.ts), which reads the registered fields; the generator reads the same
 * declaration by duck typing, so the rule is restated here from the model's fields.
 */
function toFilter(filter: NamedLike, attributes: readonly AttributeModel[], relationships: readonly RelationshipModel[]): FilterModel {
  const { name } = filter;
  const commaList = name === 'id' || relationships.some((r) => r.name === name) || attributes.some((a) => a.name === name && a.kind === 'enum');
  const declares = filter.declares === 'where' || filter.declares === 'custom' ? filter.declares : undefined;
  const description = typeof filter.descriptionText === 'string' && filter.descriptionText.trim() !== '' ? filter.descriptionText.trim() : undefined;
  const operators = Array.isArray(filter.declaredOperators) ? (filter.declaredOperators as Operator[]) : undefined;
  return { name, declares, commaList, description, operators, caseInsensitive: filter.isCaseInsensitive === true };
}

function toAttribute(field: FieldLike): AttributeModel {
  return {
    name: field.name,
    kind: (field.kind ?? 'string') as AttributeKind,
    enumValues: field.kind === 'enum' ? [...(field.enumValues ?? [])] : [],
    nullable: field.isNullable === true,
    writable: field.isWritable === true,
    required: field.isRequired === true,
    hasGetter: typeof field.getter === 'function',
    hasDefault: field.hasDefault === true,
    constraints: toConstraints(field.constraints ?? {}),
  };
}

/** JSON Schema's names for the declared bounds; a pattern with flags JSON Schema cannot carry (`i`, `m`, `s`) is left out rather than described wrongly. */
function toConstraints(declared: NonNullable<FieldLike['constraints']>): AttributeConstraintsModel {
  const { minLength, maxLength, pattern, min, max } = declared;
  return {
    ...(minLength !== undefined && { minLength }),
    ...(maxLength !== undefined && { maxLength }),
    ...(pattern !== undefined && !/[ims]/.test(pattern.flags) && { pattern: pattern.source }),
    ...(min !== undefined && { minimum: min }),
    ...(max !== undefined && { maximum: max }),
  };
}

function toRelationship(field: FieldLike): RelationshipModel {
  return {
    name: field.name,
    cardinality: field.cardinality!,
    relatedType: field.relatedType!,
    includable: field.isIncludable === true,
    linkage: field.hasLinkage === true,
    writable: field.isWritable === true,
    required: field.isRequired === true,
  };
}

function toEndpoints(list: ReturnType<LoadedResource['schema']['endpoints']>): EndpointsModel {
  const index = list.find((e) => e.kind === 'index');
  const has = (kind: string) => list.some((e) => e.kind === kind);
  return {
    show: has('show'),
    index: index && {
      pagination: index.pagination && { defaultLimit: index.pagination.defaultLimit, maxLimit: index.pagination.maxLimit },
      defaultSort: index.defaultSortValue,
      countable: index.isCountable === true,
      cursor: index.acceptsCursor === true,
    },
    create: has('create'),
    update: has('update'),
    delete: has('delete'),
    requiresIfMatch: list.some((e) => e.requiresIfMatch === true),
  };
}

/** What the runtime checks at registration, in the order the data-layer interface lists it. */
export function capabilities(endpoints: EndpointsModel, relationships: readonly RelationshipModel[]): Capability[] {
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
  // A data layer may give versions wherever writes are (If-Match); must, where an endpoint requires it.
  if (endpoints.requiresIfMatch) needs.push('Versioned');
  else if (endpoints.update || endpoints.delete) needs.push('OptionallyVersioned');
  return needs;
}

/** How many endpoints the API enables. */
export function endpointCount(model: ApiModel): number {
  return model.resources.reduce((sum, r) => sum + Object.values(r.endpoints).filter(Boolean).length, 0);
}
