/**
 * `defineStore`: data layers on the models of a generated Prisma Client, one per resource
 * type, from a typed mapping (`mapping.ts`). This file holds the reads; the writes (create,
 * update, delete, to-many changes, transactions) are filled in by `writes.ts`.
 */
import type {
  Authorizable,
  ConditionPath,
  Context,
  Countable,
  CountPath,
  CursorPage,
  CursorPaginatable,
  CustomFilterable,
  CustomSortable,
  FilterCondition,
  Filterable,
  FilterValue,
  Findable,
  Listable,
  OffsetPagination,
  Paginatable,
  RelatedLoaders,
  Relationship,
  RelationshipCounts,
  Sortable,
  SortDirection,
  ToMany,
  Versioned,
} from 'jsonapi-gen';
import type { PrismaWhere, WhereProvider } from './conditions.js';
import type { AnyModelMapping } from './mapping.js';
import {
  type PrismaQuery,
  type Resources,
  conditionWhere,
  countWhere,
  distinct,
  orderEntry,
  sqliteDateTime,
  queryWhere,
} from './query.js';
import { countRelated, loadRelated, queryRelated } from './reads.js';
import { type Model, ModelResource, allOf, keyText } from './resource.js';

export type { PrismaQuery } from './query.js';
export type { Model } from './resource.js';

/** The read side of a Prisma-backed resource's data layer. */
export type PrismaDataLayer = Findable<Model> &
  Listable<Model, PrismaQuery> &
  Paginatable<PrismaQuery> &
  CursorPaginatable<PrismaQuery> &
  Countable<PrismaQuery> &
  RelatedLoaders<Model, Record<string, unknown>> &
  RelationshipCounts<Model> &
  Filterable<PrismaQuery, string> &
  CustomFilterable<PrismaQuery, Record<string, FilterValue>> &
  Sortable<PrismaQuery, string> &
  CustomSortable<PrismaQuery, string> &
  Partial<Versioned<Model>> &
  Partial<Authorizable<Model>>;

/** Options of `defineStore`. */
export interface PrismaStoreOptions {
  /** The client's database: Prisma's text filters and their case rules differ between them. */
  readonly provider: WhereProvider;
  /**
   * The client or interactive transaction a request's reads run on. Default: the client given
   * to `defineStore`.
   */
  readonly clientFor?: (context: Context) => object;
}

/**
 * Backs resources by the models of one Prisma Client: every resource's mapping at once (keyed
 * by resource type), so that relationships, paths and counts read the related type with its
 * own mapping and scope. Each entry is a data layer to spread into the resource's schema: find,
 * findMany, query, where (the whole query language; counts other than existence and, on
 * SQLite, case-sensitive text operators are worked out by one extra query each), orderBy
 * (attributes, a to-one relation's attribute, relation counts), paginate, paginateCursor,
 * count, related loaders (one `findMany` per relationship per include level), countRelated
 * (one `groupBy`), queryRelated. Only Prisma's public API; ids are integers unless `parseId`
 * says otherwise.
 *
 * @example
 * import { PrismaClient } from './generated/sqlite/client.js';
 * declare const prisma: PrismaClient;
 * const store = defineStore(prisma, {
 *   people: { model: 'person', relationships: { articles: { field: 'articles', model: 'article', foreignKey: 'authorId' } } },
 *   articles: { model: 'article', version: 'version', relationships: {
 *     author: { field: 'author', foreignKey: 'authorId' },
 *     comments: { field: 'comments', model: 'comment', foreignKey: 'articleId' },
 *     tags: { field: 'tags', through: { model: 'articleTag', from: 'articleId', to: 'tagId', relation: 'tag' } },
 *   } },
 * }, { provider: 'sqlite' });
 * // api.resource({ ...schema.articles, ...store.articles, create, update, delete })
 */
export function defineStore<C extends object, const M extends Record<string, AnyModelMapping<C>>>(
  client: C,
  mappings: M,
  options: PrismaStoreOptions,
): { readonly [K in keyof M]: PrismaDataLayer } {
  const clientFor = options.clientFor ?? (() => client);
  const resources = new Map<string, ModelResource>();
  for (const [type, mapping] of Object.entries(mappings))
    resources.set(type, new ModelResource(type, mapping, options.provider, clientFor));
  const layers: Record<string, PrismaDataLayer> = {};
  for (const resource of resources.values()) layers[resource.type] = dataLayer(resources, resource);
  return layers as { readonly [K in keyof M]: PrismaDataLayer };
}

function dataLayer(resources: Resources, resource: ModelResource): PrismaDataLayer {
  const { mapping, idField } = resource;
  const where = (query: PrismaQuery, part: PrismaWhere): PrismaQuery => ({ ...query, where: [...query.where, part] });
  const related: Record<string, (models: readonly Model[], context: Context, r: Relationship) => Promise<unknown[]>> =
    {};
  for (const name of Object.keys(mapping.relationships ?? {}))
    related[name] = async (models, context, relationship) => [
      ...(await loadRelated(resources, resource, relationship, models, context)),
    ];
  const find = async (ids: readonly string[], context: Context): Promise<Array<Model | null>> => {
    const keys = distinct(ids.map((id) => resource.parseId(id)));
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
      const rows = await resource.delegate(context).findMany({
        where: queryWhere(resource, query, context),
        // Without a sort, the id's order: the same rows in the same order every time.
        orderBy: query.orderBy.length > 0 ? [...query.orderBy] : [{ [idField]: 'asc' }],
        ...(query.skip !== undefined && { skip: query.skip }),
        ...(query.take !== undefined && { take: query.take }),
      });
      return rows.map((row) => resource.toModel(row));
    },
    where: async (query, condition: FilterCondition, context) =>
      where(query, await conditionWhere(resources, resource, condition, context)),
    composableFilters: Object.keys(mapping.filters ?? {}),
    customFilters: Object.fromEntries(
      Object.entries(mapping.filters ?? {}).map(([name, filter]) => [
        name,
        (query: PrismaQuery, value: FilterValue, context: Context) => where(query, filter(value, context)),
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
    count: (query, context) => resource.delegate(context).count({ where: queryWhere(resource, query, context) }),
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
