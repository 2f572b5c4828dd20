/**
 * `defineStore`: data layers on a host's Drizzle tables, one per resource type, from a typed
 * mapping (`mapping.ts`, checked by `checked.ts`): the reads here (conditions in
 * `conditions.ts`, list queries in `query.ts`, batched reads in `reads.ts`), the writes through
 * `store-writes.ts`, every statement on the request's transaction (`transaction.ts`).
 */
import type {
  StoreDataLayer,
  Condition,
  ConditionPath,
  Context,
  CountPath,
  CursorPage,
  FilterCondition,
  FilterValue,
  OffsetPagination,
  Relationship,
  ResourceTypes,
  SortDirection,
  ToMany,
} from 'jsonapi-gen';
import { distinctKeys, invalidFilterValue, keyText } from 'jsonapi-gen/internal';
import { type SQL, sql } from 'drizzle-orm';
import type { StoreMapping } from './checked.js';
import { type Piece, conditionPiece, countSql } from './conditions.js';
import type { UntypedTableMapping } from './mapping.js';
import { TableQuery } from './query.js';
import {
  type StoreReads,
  countRelated,
  loadRelated,
  modelsByKey,
  queryRelated,
  scopeOf,
  scopePieces,
} from './reads.js';
import { type Model, TableResource, declaredRelations } from './resource.js';
import { type Database, Statements } from './statements.js';
import { runDrizzle } from './errors.js';
import { isMysqlDateTime, mysqlDateTime } from './mysql.js';
import { storeExistence, writeLayer } from './store-writes.js';
import { databaseFor, isSqliteDatabase, openTransaction, sqliteTurn } from './transaction.js';

export { TableQuery } from './query.js';
export type { Model } from './resource.js';

/**
 * The data layer a Drizzle-backed resource of types `R` implements: what the generated
 * `XDataLayer` asks, typed by `R` (the generated `XTypes`): reads and writes. Its `count` runs
 * only for collections whose Index declares `countable()`.
 */
export type DrizzleDataLayer<R extends ResourceTypes = ResourceTypes> = StoreDataLayer<R, TableQuery>;

/** The data layers of a store, by resource type. */
export type DrizzleStore<R extends { [K in keyof R]: ResourceTypes }> = {
  readonly [K in keyof R]: DrizzleDataLayer<R[K]>;
};

/** Options of `defineStore`. */
export interface DrizzleStoreOptions {
  /**
   * The database: its text operators' case rules differ (SQLite's LIKE ignores ASCII case,
   * MySQL's default collations ignore case), and MySQL's date-times are UTC `DATETIME` text.
   */
  readonly dialect: 'sqlite' | 'postgresql' | 'mysql';
  /**
   * The transaction a request's reads run on, if it has one (found by `ctx.unitOfWork`).
   * Default: the request's transaction (`drizzleTransaction` of the same database, found by
   * `databaseFor`), else the database given to `defineStore`. The writes always run on the
   * request's transaction (`databaseFor`).
   */
  readonly transactionOf?: (context: Context) => object | undefined;
}

/**
 * Backs resources by the tables of a Drizzle schema module: every resource's mapping at once
 * (keyed by resource type), so that relationships, paths and counts read the related type with
 * its own mapping and scope. A mapping names its table (`{ table: articles }`); attributes are
 * the columns of their own key unless `columns` maps them; a relationship is the `relations()`
 * entry of its name unless `relationships` gives its foreign key or join table. Checked against
 * the tables' types and the generated resource types `R`. Each entry is a data layer to spread
 * into the resource's schema: find, findMany (one `in` read), query, results, where (the whole
 * query language), orderBy (attributes, a to-one relationship's attribute, counts), paginate,
 * paginateCursor (keyset), count, the related loaders (one statement per relationship per
 * include level; a to-one include of rows the request has read already runs none),
 * countRelated (one grouped statement), queryRelated; and the writes (create, update, delete,
 * addToRelationship, removeFromRelationship: `writes.ts` on the resource's table, columns,
 * foreign keys and join tables, its `version` and `serverColumns`) with one existence check of
 * related ids for the whole store. Statements whose SQL depends only on their shape are
 * prepared once (placeholders) and run with each request's values. Every statement runs on the
 * request's transaction when `drizzleTransaction(db)` of the same `db` runs it; on SQLite a
 * read outside a transaction waits while another request's is open on the one connection.
 *
 * @example
 * import Database from 'better-sqlite3';
 * import { drizzle } from 'drizzle-orm/better-sqlite3';
 * import * as schema from './drizzle/sqlite.js';
 * import type { Resources } from './generated/index.js';
 * const db = drizzle(new Database('blog.sqlite'));
 * const store = defineStore<typeof schema, Resources>(db, schema, {
 *   people: { table: schema.people },
 *   articles: { table: schema.articles, version: 'version', filters: { search: (v) => sql`lower(${schema.articles.title}) like ${`%${String(v)}%`}` }, policy: () => true },
 *   comments: { table: schema.comments },
 *   tags: { table: schema.tags },
 * }, { dialect: 'sqlite' });
 * const api = createApi(store, { transaction: drizzleTransaction(db) });
 */
export function defineStore<S, R extends { [K in keyof R]: ResourceTypes }>(
  db: object,
  schema: S,
  mappings: StoreMapping<S, R>,
  options: DrizzleStoreOptions,
): DrizzleStore<R> {
  const declared = declaredRelations(schema as Record<string, unknown>);
  const resources = new Map<string, TableResource>();
  for (const [type, mapping] of Object.entries(mappings as Record<string, UntypedTableMapping>))
    resources.set(type, new TableResource(type, mapping, declared));
  const database = db as Database;
  const statements = new Statements(database, options.dialect === 'postgresql');
  const transactionOf = options.transactionOf ?? ((context: Context) => databaseFor(db, context));
  const reads: StoreReads = {
    resources,
    statements,
    sqlite: options.dialect === 'sqlite',
    mysql: options.dialect === 'mysql',
    on: (context) => (transactionOf(context) as Database | undefined) ?? database,
    read: storeReads(db),
    loaded: new WeakMap(),
  };
  // One existence check for the whole store: the linkage of a write to several of its types is
  // checked in one statement, each type within its scope.
  const check = storeExistence(db, resources);
  const layers: Record<string, DrizzleDataLayer> = {};
  for (const resource of resources.values())
    layers[resource.type] = {
      ...dataLayer(reads, resource),
      ...writeLayer(db, resources, resource),
      existence: { check, member: resource.type },
    };
  return layers as unknown as DrizzleStore<R>;
}

/**
 * How reads run on `db`, what they throw as the runtime's errors (`runDrizzle`: a filter value
 * the column cannot be compared with is 400, a database away 503). On SQLite (better-sqlite3)
 * every statement shares the one connection: a read outside a transaction runs at once while no
 * transaction is open on it, else it waits for its turn (`sqliteTurn`), after the open one
 * (whose uncommitted rows it must not see). Inside the request's transaction, or on PostgreSQL
 * (a pool), it runs at once.
 */
function storeReads(db: object): StoreReads['read'] {
  const client = isSqliteDatabase(db) ? (db as { $client?: { inTransaction?: boolean } }).$client : undefined;
  if (client?.inTransaction === undefined) return (_context, run) => runDrizzle(run);
  return (context, run) =>
    runDrizzle(() =>
      !client.inTransaction || openTransaction(db, context) !== undefined ? run() : sqliteTurn(db, run),
    );
}

/** The writes of a data layer, which `store-writes.ts` adds. */
type Writes = 'create' | 'update' | 'delete' | 'addToRelationship' | 'removeFromRelationship';

function dataLayer(r: StoreReads, resource: TableResource): Omit<DrizzleDataLayer, Writes> {
  const { mapping } = resource;
  const related: Record<
    string,
    (models: readonly Model[], context: Context, relationship: Relationship) => Promise<unknown[]>
  > = {};
  for (const name of relationshipNames(resource))
    related[name] = (models, context, relationship) => loadRelated(r, resource, relationship, models, context);
  const version = mapping.version === undefined ? undefined : resource.property(mapping.version);
  return {
    async find(id: string, context: Context) {
      const key = resource.parseId(id);
      if (key === undefined) return null;
      return (await modelsByKey(r, resource, [key], context)).get(keyText(key)) ?? null;
    },
    async findMany(ids: readonly string[], context: Context) {
      const parsed = ids.map((id) => resource.parseId(id));
      const keys = distinctKeys(parsed);
      const byKey = keys.length === 0 ? new Map<string, Model>() : await modelsByKey(r, resource, keys, context);
      return parsed.map((key) => (key === undefined ? null : (byKey.get(keyText(key)) ?? null)));
    },
    query: (context: Context) => new TableQuery(resource, r.on(context), undefined, scopePieces(resource, context)),
    async results(query: TableQuery, context: Context) {
      context.throwIfAborted();
      const rows = await r.read(context, () =>
        r.statements.rows(query.on, query.shape, query.values, (on, slot) => query.build(on, slot)),
      );
      return resource.toModels(rows);
    },
    async count(query: TableQuery, context: Context) {
      context.throwIfAborted();
      const [row] = await r.read(context, () =>
        r.statements.rows(query.on, query.countShape, query.countValues, (on, slot) => query.buildCount(on, slot)),
      );
      return Number(row?.count ?? 0);
    },
    // A count is one more statement per list: only where the schema's Index declares countable().
    countOnlyWhereDeclared: true,
    where: (query: TableQuery, condition: FilterCondition, context: Context) => {
      if (r.mysql) checkRelatedIds(r, resource, condition);
      return query.where(conditionPiece(scopeOf(r, context), resource, condition, true));
    },
    composableFilters: Object.keys(mapping.filters ?? {}),
    customFilters: Object.fromEntries(
      Object.entries(mapping.filters ?? {}).map(([name, filter]) => [
        name,
        (query: TableQuery, value: FilterValue, context: Context) =>
          query.where({ shape: undefined, values: [], sql: () => filter(value, context) }),
      ]),
    ),
    orderBy: (
      query: TableQuery,
      field: string,
      direction: SortDirection,
      context: Context,
      path?: ConditionPath | CountPath,
    ) => orderBy(r, resource, query, field, direction, context, path),
    customSorts: Object.fromEntries(
      Object.entries(mapping.sorts ?? {}).map(([name, sort]) => [
        name,
        (query: TableQuery, direction: SortDirection, context: Context) => {
          const terms = sort(direction, context);
          return query.orderByTerms(Array.isArray(terms) ? (terms as SQL[]) : [terms as SQL]);
        },
      ]),
    ),
    paginate: (query: TableQuery, { offset, limit }: OffsetPagination) => query.page(limit, offset),
    paginateCursor: (query: TableQuery, page: CursorPage, context: Context) =>
      keyset(r, resource, query, page, context),
    related,
    queryRelated: (relationship: Relationship, model: Model, context: Context) =>
      queryRelated(r, resource, relationship, model, context),
    countRelated: (relationship: ToMany, models: readonly Model[], context: Context) =>
      countRelated(r, resource, relationship, models, context),
    ...(version !== undefined && { versionOf: (model: Model) => String(model[version]) }),
    ...(mapping.policy && { can: mapping.policy }),
  };
}

/**
 * On MySQL, 400 for a to-one relationship filter (`filter[author]=...`) whose id the related
 * resource's `parseId` refuses, as PostgreSQL answers a value its key column cannot hold: MySQL
 * would compare `'1 OR 1=1'` with an integer key as 1.
 */
function checkRelatedIds(r: StoreReads, resource: TableResource, condition: FilterCondition): void {
  if (condition.op === 'and' || condition.op === 'or' || condition.op === 'not') {
    for (const inner of condition.conditions) checkRelatedIds(r, resource, inner);
    return;
  }
  if (condition.op === 'custom') return;
  const leaf = condition as Condition;
  if (leaf.op === 'null' || leaf.path || leaf.count) return;
  const { field } = leaf;
  if (resource.mapping.relationships?.[field] === undefined && !resource.declaredNames().includes(field)) return;
  const relation = resource.writeRelation(field, r.resources);
  if (relation.kind !== 'toOne') return;
  const ids = Array.isArray(leaf.value) ? (leaf.value as readonly unknown[]) : [leaf.value];
  if (ids.some((id) => relation.related.parseId(String(id)) === undefined)) throw invalidFilterValue();
}

/** The relationships a resource may have loaders for: its mapping's and its table's `relations()`. */
function relationshipNames(resource: TableResource): string[] {
  return [...new Set([...Object.keys(resource.mapping.relationships ?? {}), ...resource.declaredNames()])];
}

/** A sort: an attribute's column, a to-one relationship's attribute (a correlated read), or a count. */
function orderBy(
  r: StoreReads,
  resource: TableResource,
  query: TableQuery,
  field: string,
  direction: SortDirection,
  context: Context,
  path?: ConditionPath | CountPath,
): TableQuery {
  if (!path) {
    const column = resource.column(field);
    return query.orderBy(`o ${resource.tableName}.${column.name}`, [], () => sql`${column}`, direction);
  }
  if (!('attribute' in path)) {
    const count = countSql(scopeOf(r, context), resource, path);
    return query.orderBy(count.shape, [], () => count.sql, direction);
  }
  const relation = resource.relation({ name: path.relationship, relatedType: path.type }, r.resources);
  if (relation.kind !== 'toOne')
    throw new TypeError(
      `defineStore: ${resource.type}.${path.relationship} is sorted on, but is no to-one relationship`,
    );
  const related = relation.related;
  // Under an alias of its own, so that the related table may be the resource's too.
  const alias = sql.identifier(`sort_${path.relationship}`);
  const value = sql`(select ${alias}.${sql.identifier(related.column(path.attribute).name)} from ${related.table} ${alias} where ${alias}.${sql.identifier(related.id.name)} = ${relation.foreignKey})`;
  return query.orderBy(`o ${path.relationship}.${path.attribute}`, [], () => value, direction);
}

/**
 * One page by keyset: ordered by the page's sorts (the id last), the rows after the boundary,
 * `k0 >= a0 and ((k0 > a0) or (k0 = a0 and k1 > a1) or ...)` (`<` for a descending key): the
 * bound on the first key alone lets the database seek in an index on it.
 */
function keyset(
  r: StoreReads,
  resource: TableResource,
  query: TableQuery,
  { sorts, after, limit }: CursorPage,
  context: Context,
): TableQuery {
  const keys = sorts.map(({ field, count }) => {
    if (count) {
      const counted = countSql(scopeOf(r, context), resource, count);
      return {
        shape: counted.shape === undefined ? undefined : `(${counted.shape})`,
        sql: counted.sql,
        dateTime: false,
      };
    }
    const column = field === 'id' ? resource.id : resource.column(field);
    return {
      shape: `${resource.tableName}.${column.name}`,
      sql: sql`${column}`,
      dateTime: r.mysql && isMysqlDateTime(column),
    };
  });
  let next = query;
  if (after) {
    // The id as stored (an integer key is compared as one).
    // The id as stored (an integer key is compared as one), a MySQL date-time as the UTC text it holds.
    const bound = after.map((value, i) =>
      sorts[i]!.field === 'id'
        ? resource.parseId(String(value))
        : keys[i]!.dateTime === true
          ? mysqlDateTime(value)
          : value,
    );
    const op = (i: number) => sql.raw(sorts[i]!.direction === 'asc' ? '>' : '<');
    const shape = keys.some((k) => k.shape === undefined)
      ? undefined
      : `after ${keys.map((k, i) => `${k.shape!} ${sorts[i]!.direction}`).join(', ')}`;
    const piece: Piece = {
      shape,
      values: bound,
      sql: (slot) => {
        const first = sql`${keys[0]!.sql} ${op(0)}= ${slot(0)}`;
        const alternatives = keys.map((key, i) => {
          const equal = keys.slice(0, i).map((prior, j) => sql`${prior.sql} = ${slot(j)}`);
          return sql.join([...equal, sql`${key.sql} ${op(i)} ${slot(i)}`], sql` and `);
        });
        return sql`${first} and ((${sql.join(alternatives, sql`) or (`)}))`;
      },
    };
    next = next.where(piece);
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    next = next.orderBy(key.shape === undefined ? undefined : `k ${key.shape}`, [], () => key.sql, sorts[i]!.direction);
  }
  return next.limit(limit);
}
