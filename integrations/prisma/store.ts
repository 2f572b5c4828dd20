/**
 * `defineStore`: data layers on the models of a generated Prisma Client, one per resource
 * type, from a typed mapping (`mapping.ts`): the reads here (`query.ts`, `reads.ts`), the writes
 * through `writes.ts`, every call on the request's transaction (`transaction.ts`).
 */
import type {
  StoreDataLayer,
  ConditionPath,
  Context,
  CountPath,
  CursorPage,
  Creatable,
  Deletable,
  FilterCondition,
  FilterValue,
  OffsetPagination,
  Relationship,
  ResourceIdentifier,
  ResourceTypes,
  SortDirection,
  ToMany,
  ToManyMutable,
  Updatable,
  WriteValues,
} from 'jsonapi-gen';
import { distinctKeys, keyText } from 'jsonapi-gen/internal';
import type { PrismaWhere, WhereProvider } from './conditions.js';
import type { StoreMapping } from './checked.js';
import type { AnyModelMapping } from './mapping.js';
import {
  type PrismaQuery,
  type Resources,
  conditionWhere,
  countWhere,
  orderEntry,
  sqliteDateTime,
  queryWhere,
} from './query.js';
import { withinBindLimit } from './id-lists.js';
import { countRelated, loadRelated, queryRelated } from './reads.js';
import { type Model, ModelResource, allOf } from './resource.js';
import { clientFor as transactionClient } from './transaction.js';
import {
  type ToManyWrite,
  type WriteModel,
  changeToMany,
  createRecord,
  deleteRecord,
  prismaExistence,
  updateRecord,
} from './writes.js';

export type { PrismaQuery } from './query.js';
export type { Model } from './resource.js';

/**
 * The data layer a Prisma-backed resource of types `R` implements: what the generated
 * `XDataLayer` asks, typed by `R` (the generated `XTypes`): reads and writes.
 */
export type PrismaDataLayer<R extends ResourceTypes = ResourceTypes> = StoreDataLayer<R, PrismaQuery>;

/** The data layers of a store, by resource type. */
export type PrismaStore<R extends { [K in keyof R]: ResourceTypes }> = {
  readonly [K in keyof R]: PrismaDataLayer<R[K]>;
};

/**
 * The types of a resource served without generated code: any model, any relationships, any
 * custom filters and sorts. What `defineModelStore` types its data layers with.
 */
export interface UntypedResource extends ResourceTypes {
  model: Record<string, unknown>;
  related: Record<string, unknown>;
  customFilters: Record<string, FilterValue>;
  customSorts: string;
  policy: boolean;
}

/** Options of `defineStore`. */
export interface PrismaStoreOptions {
  /** The client's database: Prisma's text filters and their case rules differ between them. */
  readonly provider: WhereProvider;
  /**
   * The client or interactive transaction a request's reads run on. Default: the request's
   * transaction (`prismaTransaction` of the same client), else the client given to
   * `defineStore`. The writes always run on the request's transaction (`clientFor`).
   */
  readonly clientFor?: (context: Context) => object;
}

/**
 * Backs resources by the models of one Prisma Client: every resource's mapping at once (keyed
 * by resource type), so that relationships, paths and counts read the related type with its
 * own mapping and scope. The mapping is checked against the client's types and the generated
 * resource types `R` (`Resources` of the generated index): each attribute maps to a scalar
 * field of a fitting kind, each relationship to a relation field of its cardinality, and the
 * schema's custom filters, sorts and policy are given; the result is the generated
 * `DataLayers`. Each entry is a data layer to spread into the resource's schema: find,
 * findMany, query, where (the whole query language; counts other than existence and, on
 * SQLite, case-sensitive text operators are worked out by one extra query each), orderBy
 * (attributes, a to-one relation's attribute, relation counts), paginate, paginateCursor,
 * count, related loaders (one `findMany` per relationship per include level), countRelated
 * (one `groupBy`), queryRelated, and the writes. Only Prisma's public API; ids are integers
 * unless `parseId` says otherwise.
 *
 * @example
 * import { PrismaClient } from './prisma/generated/sqlite/client.js';
 * import { createApi, type Resources } from './generated/index.js';
 * declare const prisma: PrismaClient;
 * declare const search: (value: FilterValue) => PrismaWhere;
 * const store = defineStore<PrismaClient, Resources>(prisma, {
 *   people: { model: 'person', relationships: { articles: { field: 'articles', model: 'article', foreignKey: 'authorId' } } },
 *   articles: { model: 'article', version: 'version', filters: { search }, policy: () => true, relationships: {
 *     author: { field: 'author', foreignKey: 'authorId' },
 *     comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },
 *     tags: { field: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId', relation: 'tag' } },
 *   } },
 *   comments: { model: 'comment', relationships: {
 *     author: { field: 'author', foreignKey: 'authorId' },
 *     article: { field: 'article', foreignKey: 'articleId' },
 *   } },
 *   tags: { model: 'tag', relationships: {
 *     articles: { field: 'articles', through: { model: 'articleTag', from: 'tagId', to: 'articleId', relation: 'article' } },
 *   } },
 * }, { provider: 'sqlite' });
 * const api = createApi(store, { transaction: prismaTransaction(prisma) });
 */
export function defineStore<C extends object, R extends { [K in keyof R]: ResourceTypes }>(
  client: C,
  mappings: StoreMapping<C, R>,
  options: PrismaStoreOptions,
): PrismaStore<R> {
  return modelStore(client, mappings as Record<string, AnyModelMapping<C>>, options) as unknown as PrismaStore<R>;
}

/**
 * `defineStore` for hosts without generated code: each mapping is checked against the client
 * only (models, scalar and relation fields), not against a schema.
 *
 * @example
 * import { PrismaClient } from './prisma/generated/sqlite/client.js';
 * declare const prisma: PrismaClient;
 * declare const api: JsonApi;
 * const store = defineModelStore(prisma, { tags: { model: 'tag' } }, { provider: 'sqlite' });
 * api.resource({ ...tags, ...store.tags });
 */
export function defineModelStore<C extends object, const M extends Record<string, AnyModelMapping<C>>>(
  client: C,
  mappings: M,
  options: PrismaStoreOptions,
): PrismaStore<Record<keyof M, UntypedResource>> {
  return modelStore(client, mappings, options) as unknown as PrismaStore<Record<keyof M, UntypedResource>>;
}

function modelStore<C extends object>(
  client: C,
  mappings: Record<string, AnyModelMapping<C>>,
  options: PrismaStoreOptions,
): Record<string, PrismaDataLayer> {
  const clientFor = options.clientFor ?? ((context: Context) => transactionClient(client, context));
  const resources = new Map<string, ModelResource>();
  for (const [type, mapping] of Object.entries(mappings))
    resources.set(type, new ModelResource(type, mapping, options.provider, clientFor));
  // One existence check for the whole store: the linkage of a write to several of its types is
  // checked with one `findMany` per type, sent together, each within its type's scope.
  const check = prismaExistence(
    client,
    Object.fromEntries(
      [...resources.values()].map((r) => [
        r.type,
        {
          model: r.mapping.model,
          idField: r.idField,
          parseId: r.parseId,
          ...(r.mapping.scope && { scope: r.mapping.scope }),
        },
      ]),
    ),
  );
  const layers: Record<string, PrismaDataLayer> = {};
  for (const resource of resources.values()) {
    const writes = writeLayer(client, resources, resource);
    layers[resource.type] = {
      ...dataLayer(resources, resource),
      ...writes,
      existence: { check, member: resource.type },
    };
  }
  return layers;
}

/** What `writes.ts` needs of a resource: its mapping as a `WriteModel`. */
/** `m` with the fields of the attributes `values` sends: by the same name unless the mapping renames them. */
function withAttributes(m: WriteModel, resource: ModelResource, values: WriteValues): WriteModel {
  return {
    ...m,
    attributes: Object.fromEntries(Object.keys(values.attributes).map((name) => [name, resource.field(name)])),
  };
}

function writeModel(resources: Resources, resource: ModelResource): WriteModel {
  const { mapping } = resource;
  const toOne: Record<string, { foreignKey: string; parse?: (id: string) => unknown }> = {};
  const toMany: Record<string, ToManyWrite> = {};
  for (const [name, relation] of Object.entries(mapping.relationships ?? {})) {
    if (relation.through) {
      const { model, from, to } = relation.through;
      toMany[name] = { relation: relation.field, through: { model, from, to } };
    } else if (relation.model !== undefined) {
      const related = [...resources.values()].find((r) => r.mapping.model === relation.model);
      toMany[name] = {
        relation: relation.field,
        connect: true,
        ...(related && { relatedKey: related.idField, parse: related.parseId }),
      };
    } else toOne[name] = { foreignKey: relation.foreignKey };
  }
  return {
    type: resource.type,
    model: mapping.model,
    table: mapping.table ?? mapping.model,
    idField: resource.idField,
    parseId: resource.parseId,
    // Filled per write with the attributes it sends (`withAttributes`).
    attributes: {},
    // Fields left out keep their own name (`writes.ts` reads `columns[field] ?? field`).
    ...(mapping.columns && { columns: mapping.columns as Readonly<Record<string, string>> }),
    toOne,
    toMany,
    ...(mapping.version !== undefined && { version: mapping.version }),
    ...(mapping.serverFields && { serverSet: mapping.serverFields }),
  };
}

/** The writes of one resource's data layer, each on the request's transaction. */
function writeLayer(
  client: object,
  resources: Resources,
  resource: ModelResource,
): Creatable<Model> & Updatable<Model> & Deletable<Model> & ToManyMutable<Model> {
  const m = writeModel(resources, resource);
  const change = (
    model: Model,
    relationship: ToMany,
    identifiers: readonly ResourceIdentifier[],
    remove: boolean,
    context: Context,
  ) => changeToMany(client, m, model, relationship.name, identifiers, remove, context);
  return {
    create: async (values: WriteValues, context: Context) =>
      resource.toModel(await createRecord(client, withAttributes(m, resource, values), values, context)),
    update: async (model: Model, values: WriteValues, context: Context) =>
      resource.toModel(await updateRecord(client, withAttributes(m, resource, values), model, values, context)),
    delete: (model: Model, context: Context) => deleteRecord(client, m, model, context),
    addToRelationship: (model, relationship, identifiers, context) =>
      change(model, relationship, identifiers, false, context),
    removeFromRelationship: (model, relationship, identifiers, context) =>
      change(model, relationship, identifiers, true, context),
  };
}

function dataLayer(
  resources: Resources,
  resource: ModelResource,
): Omit<PrismaDataLayer, 'create' | 'update' | 'delete' | 'addToRelationship' | 'removeFromRelationship'> {
  const { mapping, idField } = resource;
  const where = (query: PrismaQuery, part: PrismaWhere): PrismaQuery => ({ ...query, where: [...query.where, part] });
  const related: Record<string, (models: readonly Model[], context: Context, r: Relationship) => Promise<unknown[]>> =
    {};
  for (const name of Object.keys(mapping.relationships ?? {}))
    related[name] = async (models, context, relationship) => [
      ...(await loadRelated(resources, resource, relationship, models, context)),
    ];
  const find = async (ids: readonly string[], context: Context): Promise<Array<Model | null>> => {
    const keys = distinctKeys(ids.map((id) => resource.parseId(id)));
    if (keys.length === 0) return ids.map(() => null);
    const rows = await resource
      .delegate(context)
      .findMany({ where: allOf([resource.scope(context), { [idField]: { in: keys } }]) });
    const byKey = new Map(rows.map((row) => [keyText(row[idField]), resource.toModel(row)]));
    return ids.map((id) => {
      const key = resource.parseId(id);
      return key === undefined ? null : (byKey.get(keyText(key)) ?? null);
    });
  };
  return {
    find: async (id, context) => (await find([id], context))[0],
    findMany: find,
    query: () => ({ where: [], orderBy: [] }),
    async results(query, context) {
      const rows = await withinBindLimit(query.lists, () =>
        resource.delegate(context).findMany({
          where: queryWhere(resource, query, context),
          // Without a sort, the id's order: the same rows in the same order every time.
          orderBy: query.orderBy.length > 0 ? [...query.orderBy] : [{ [idField]: 'asc' }],
          ...(query.skip !== undefined && { skip: query.skip }),
          ...(query.take !== undefined && { take: query.take }),
        }),
      );
      return rows.map((row) => resource.toModel(row));
    },
    where: async (query, condition: FilterCondition, context) => {
      const { where: part, lists } = await conditionWhere(resources, resource, condition, context);
      return { ...where(query, part), lists: [...(query.lists ?? []), ...lists] };
    },
    composableFilters: Object.keys(mapping.filters ?? {}),
    customFilters: Object.fromEntries(
      Object.entries(mapping.filters ?? {}).map(([name, filter]) => [
        name,
        async (query: PrismaQuery, value: FilterValue, context: Context) => where(query, await filter(value, context)),
      ]),
    ),
    orderBy: (
      query: PrismaQuery,
      field: string,
      direction: SortDirection,
      _context: Context,
      path?: ConditionPath | CountPath,
    ) => ({ ...query, orderBy: [...query.orderBy, orderEntry(resources, resource, field, direction, path)] }),
    customSorts: Object.fromEntries(
      Object.entries(mapping.sorts ?? {}).map(([name, sort]) => [
        name,
        (query: PrismaQuery, direction: SortDirection, context: Context) => ({
          ...query,
          orderBy: [...query.orderBy, ...sort(direction, context)],
        }),
      ]),
    ),
    paginate: (query, { offset, limit }: OffsetPagination) => ({
      ...query,
      // The id last keeps pages stable when the sort has ties.
      orderBy: [...query.orderBy, { [idField]: 'asc' }],
      skip: offset,
      take: limit,
    }),
    paginateCursor: (query, page, context) => keyset(resources, resource, query, page, context),
    count: (query, context) =>
      withinBindLimit(query.lists, () =>
        resource.delegate(context).count({ where: queryWhere(resource, query, context) }),
      ),
    countOnlyWhereDeclared: true,
    related,
    queryRelated: (relationship, model, context) => queryRelated(resources, resource, relationship, model, context),
    countRelated: (relationship: ToMany, models, context) =>
      countRelated(resources, resource, relationship, models, context),
    ...(mapping.version !== undefined && { versionOf: (model: Model) => String(model[mapping.version!]) }),
    ...(mapping.policy && { can: mapping.policy }),
  };
}

/**
 * One page by keyset: ordered by the page's sorts (the id last), the rows after the boundary:
 * `(a > x) or (a = x and b > y) or ...` (`<` for a descending sort), a count sort's comparisons
 * worked out as ids (`countWhere`).
 */
async function keyset(
  resources: Resources,
  resource: ModelResource,
  query: PrismaQuery,
  { sorts, after, limit }: CursorPage,
  context: Context,
): Promise<PrismaQuery> {
  const orderBy = sorts.map(({ field, direction, count }) => orderEntry(resources, resource, field, direction, count));
  if (!after) return { ...query, orderBy, take: limit };
  const compare = async (i: number, op: 'eq' | 'gt' | 'lt'): Promise<PrismaWhere> => {
    const { field, count } = sorts[i]!;
    const value = after[i]!;
    if (count) return countWhere(resources, resource, count, op, Number(value), context);
    const key = field === 'id' ? resource.parseId(String(value)) : value;
    const name = resource.field(field);
    if (resource.provider === 'sqlite' && resource.isDateTime(name, context))
      return sqliteDateTime(name, { op, value })!;
    return { [resource.field(field)]: op === 'eq' ? { equals: key } : { [op]: key } };
  };
  const alternatives: PrismaWhere[] = [];
  for (let i = 0; i < sorts.length; i++) {
    const parts: PrismaWhere[] = [];
    for (let j = 0; j < i; j++) parts.push(await compare(j, 'eq'));
    parts.push(await compare(i, sorts[i]!.direction === 'asc' ? 'gt' : 'lt'));
    alternatives.push(allOf(parts));
  }
  return { ...query, where: [...query.where, { OR: alternatives }], orderBy, take: limit };
}
