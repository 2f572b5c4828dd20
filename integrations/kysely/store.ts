import { type Kysely, sql } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import type {
  StoreDataLayer,
  ConditionPath,
  CountPath,
  CursorPage,
  Context,
  FilterCondition,
  OffsetPagination,
  Relationship,
  ResourceIdentifier,
  ResourceTypes,
  FilterValue,
  SharedExistence,
  SortDirection,
  ToMany,
  WriteValues,
} from 'jsonapi-gen';
import { staleVersion } from 'jsonapi-gen';
import { goneError } from 'jsonapi-gen/internal';
import { runStatement, type Written } from './errors.js';
import type { StoreMapping } from './checked.js';
import { CompiledStatements } from './compiled.js';
import { storeExistence } from './existence.js';
import { type KeysetKey, ListQuery } from './list-query.js';
import type { SelectQuery } from './select-query.js';
import type { AnyTableMapping } from './mapping.js';
import { changeMembers, insertWithMembers, joinRowsOf, writeToMany } from './members.js';
import { countRelated, distinct, loadRelated, queryRelated } from './reads.js';
import { type ComposableWhere, countSubquery } from './condition-tree.js';
import { StoreTables } from './store-tables.js';
import { whereQuery } from './where.js';
import { type Model, type Row, TableResource, keyText } from './table-resource.js';
import { executorFor, stopIfGone } from './transaction.js';
import { dialectOf } from './dialect.js';
import { mysqlRow } from './mysql-values.js';
import { mysqlInsertReturning } from './mysql-server.js';

export type { Model } from './table-resource.js';
export { ListQuery } from './list-query.js';

/**
 * The data layer a Kysely-backed resource of types `R` implements: what the generated
 * `XDataLayer` asks, typed by `R` (the generated `XTypes`). Its `count` runs only for collections
 * whose Index declares `countable()` (`countOnlyWhereDeclared`), however the data layer is bound.
 */
export type KyselyDataLayer<R extends ResourceTypes = ResourceTypes> = StoreDataLayer<R, ListQuery>;

/** The data layers of a store, by resource type. */
export type Store<R extends { [K in keyof R]: ResourceTypes }> = { readonly [K in keyof R]: KyselyDataLayer<R[K]> };

/** A value as drivers bind it: dates as ISO strings. */
function bindable(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * Backs resources by tables of one Kysely database: give every resource's table mapping at once
 * (keyed by resource type) so that relationships read their related rows with the related
 * resource's own mapping. Each entry of the result is a data layer to spread into the
 * resource's schema: find, findMany, delete, query, results, paginate, count,
 * loadRelated (at most one statement per call), queryRelated, and the writes create (one
 * `insert ... returning *`), update, addToRelationship, removeFromRelationship; all of them
 * share one `existence` check, so that the linkage of a write to several types is checked in one
 * statement. Every statement runs on the request's transaction
 * when `kyselyTransaction` / `withTransaction` bound one. A read request loads a row by key at
 * most once: a to-one include naming only rows it has loaded already (`include=author,
 * comments.author`) runs no statement. Ids are integer keys unless `parseId`
 * says otherwise; values are always bound parameters. A mapping's `scope` narrows every read
 * of its resource, wherever it happens (see `TableMapping.scope`).
 *
 * @example
 * import { db, type Database } from './db.js';
 * import { createApi, type Resources } from './generated/index.js';
 * declare const search: (query: SelectQuery, value: FilterValue) => SelectQuery;
 * const store = defineStore<Database, Resources>(db, {
 *   people: { table: 'people', columns: { createdAt: 'created_at' },
 *     relationships: { articles: { type: 'toMany', table: 'articles', foreignKey: 'author_id' } } },
 *   articles: { table: 'articles', columns: { createdAt: 'created_at', updatedAt: 'updated_at', authorId: 'author_id' },
 *     filters: { search },
 *     policy: (ability, article, ctx) => ability === 'create' || String(article.authorId) === ctx.getAttribute('user'),
 *     relationships: {
 *       author: { type: 'toOne', foreignKey: 'author_id' },
 *       comments: { type: 'toMany', table: 'comments', foreignKey: 'article_id' },
 *       tags: { type: 'toMany', table: 'tags', through: { table: 'article_tags', from: 'article_id', to: 'tag_id' } },
 *     } },
 *   comments: { table: 'comments', columns: { createdAt: 'created_at' },
 *     relationships: { author: { type: 'toOne', foreignKey: 'author_id' }, article: { type: 'toOne', foreignKey: 'article_id' } } },
 *   tags: { table: 'tags',
 *     relationships: { articles: { type: 'toMany', table: 'articles', through: { table: 'article_tags', from: 'tag_id', to: 'article_id' } } } },
 *   events: { table: 'jsonapi_outbox', columns: { resourceType: 'resource_type', resourceId: 'resource_id', occurredAt: 'occurred_at' } },
 * });
 * const api = createApi(store);
 */
export function defineStore<DB, R extends { [K in keyof R]: ResourceTypes }>(
  db: Kysely<DB>,
  resources: StoreMapping<DB, R>,
): Store<R> {
  return tableStore(db, resources as Record<string, AnyTableMapping<DB>>) as unknown as Store<R>;
}

/**
 * The types of a resource served without generated code: any model, any relationships.
 * What `defineTableStore` types its data layers with.
 */
export interface UntypedResource extends ResourceTypes {
  model: Record<string, unknown>;
  related: Record<string, unknown>;
  customFilters: Record<string, FilterValue>;
  customSorts: string;
  policy: boolean;
}

/**
 * `defineStore` for hosts without generated code: each mapping is checked against the database
 * only (tables and columns), not against a schema.
 *
 * @example
 * import { db } from './db.js';
 * import { tags } from './schema.js';
 * declare const api: JsonApi;
 * const store = defineTableStore(db, { tags: { table: 'tags' } });
 * api.resource({ ...tags, ...store.tags });
 */
export function defineTableStore<DB, M extends Record<string, AnyTableMapping<DB>>>(
  db: Kysely<DB>,
  resources: M,
): Store<Record<keyof M, UntypedResource>> {
  return tableStore(db, resources) as Store<Record<keyof M, UntypedResource>>;
}

function tableStore<DB>(
  db: Kysely<DB>,
  resources: Record<string, AnyTableMapping<DB>>,
): Record<string, KyselyDataLayer> {
  const tables = new Map<string, TableResource>();
  for (const [type, mapping] of Object.entries(resources))
    tables.set(type, new TableResource(type, mapping as unknown as AnyTableMapping<AnyDatabase>));
  const store: Record<string, KyselyDataLayer> = {};
  const shared = new StoreTables(db as Kysely<AnyDatabase>, tables, new CompiledStatements(db as Kysely<AnyDatabase>));
  // One existence check for the whole store: linkage to several of its types is checked at once.
  const check = storeExistence(shared);
  for (const resource of tables.values()) store[resource.type] = dataLayer(shared, resource, check);
  return store;
}

function dataLayer(t: StoreTables, resource: TableResource, check: SharedExistence): KyselyDataLayer {
  const { db, statements } = t;
  const { table } = resource;
  const mysql = dialectOf(db) === 'mysql';
  const toModels = (rows: readonly Record<string, unknown>[]) => resource.toModels(rows);

  /** Columns to write from checked values: attributes, to-one foreign keys, server-set columns. */
  const toRow = (values: WriteValues, operation: 'create' | 'update', context: Context) => {
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values.attributes)) row[resource.column(name)] = bindable(value);
    for (const [name, linkage] of Object.entries(values.relationships)) {
      const mapping = resource.relationships[name];
      if (mapping?.type !== 'toOne' || Array.isArray(linkage)) continue;
      row[mapping.foreignKey] = linkage === null ? null : t.resourceOf(linkage).parseId(linkage.id);
    }
    Object.assign(row, resource.serverColumns?.(operation, context));
    return row;
  };

  /** What a create or update writes, for errors that point at the culprit (see `runStatement`). */
  const written = (values: WriteValues): Written => ({
    attributes: values.attributes,
    column: (name) => resource.column(name),
    idColumn: resource.idColumn,
  });

  /**
   * Reads back the row a create or update has just written, without the scope: the request
   * wrote it (an update's target passed the scope in `find`; a create's row is the client's).
   */
  async function findByKey(key: unknown, context: Context): Promise<Model> {
    const [row]: Row[] = await runStatement(() => t.byKey(resource, executorFor(db, context), key));
    if (!row) throw new TypeError(`defineStore: ${resource.type} ${String(key)} was written but cannot be read back`);
    return resource.toModel(row);
  }

  /**
   * Whether setting the to-many members `values` write may change rows of the resource's own
   * table (a to-many by foreign key into the same table): then a new row is read back after.
   */
  const membersInOwnTable = (values: WriteValues) =>
    Object.entries(values.relationships).some(([name, linkage]) => {
      const mapping = resource.relationships[name];
      return (
        Array.isArray(linkage) &&
        linkage.length > 0 &&
        mapping?.type === 'toMany' &&
        !('through' in mapping && mapping.through) &&
        mapping.table === table
      );
    });

  /**
   * Inserts a row (`insert ... returning *`: the row as stored, defaults included) and its
   * to-many members, which change other tables only (join-table rows, or other rows' foreign
   * keys); on PostgreSQL, join-table members in the row's own statement (`insertWithMembers`).
   */
  async function createRow(values: WriteValues, context: Context): Promise<Model> {
    const row = toRow(values, 'create', context);
    if (values.id !== undefined) row[resource.idColumn] = resource.parseId(values.id);
    if (mysql) return createMysqlRow(values, row, context);
    // Kysely leaves out columns whose value is undefined; so does the statement's shape.
    const columns = Object.keys(row).filter((c) => row[c] !== undefined);
    // On PostgreSQL, join-table members go in the row's own statement (undefined: written after).
    const members = joinRowsOf(t, resource, values.relationships);
    const shape = `${resource.type} insert ${JSON.stringify(columns)}${members ? ` with ${JSON.stringify(members.map((j) => [j.join, j.from, j.to, j.keys.length]))}` : ''} returning *`;
    const parameters = columns.map((c) => row[c]);
    if (members) for (const { keys } of members) parameters.push(...keys);
    const [inserted]: Row[] = await runStatement(
      () =>
        statements.rows(executorFor(db, context), shape, parameters, (on) =>
          members
            ? insertWithMembers(on, table, row, resource.idColumn, members)
            : on.insertInto(table).values(row).returningAll(),
        ),
      written(values),
    );
    if (!inserted) throw new TypeError(`defineStore: inserting into ${table} returned no row`);
    const key = inserted[resource.idColumn];
    if (!members) await writeToMany(t, resource, key, values.relationships, context, true);
    return membersInOwnTable(values) ? findByKey(key, context) : resource.toModel(inserted);
  }

  /**
   * MySQL has no `insert ... returning`: the row is inserted, its members written, and the row
   * read back by its key (the client's id, or the one the insert generated) in the same
   * transaction. MariaDB 10.5+ has it (`mysqlInsertReturning`): the insert returns the row as
   * stored, as on PostgreSQL and SQLite, a statement fewer.
   */
  async function createMysqlRow(values: WriteValues, row: Record<string, unknown>, context: Context): Promise<Model> {
    const on = executorFor(db, context);
    await mysqlRow(db, table, row, on);
    const columns = Object.keys(row).filter((c) => row[c] !== undefined);
    const parameters = columns.map((c) => row[c]);
    const shape = `${resource.type} insert ${JSON.stringify(columns)}`;
    if (await mysqlInsertReturning(db, on)) {
      const [inserted]: Row[] = await runStatement(
        () =>
          statements.rows(on, `${shape} returning *`, parameters, (q) =>
            q.insertInto(table).values(row).returningAll(),
          ),
        written(values),
      );
      if (!inserted) throw new TypeError(`defineStore: inserting into ${table} returned no row`);
      const key = inserted[resource.idColumn];
      await writeToMany(t, resource, key, values.relationships, context, true);
      return membersInOwnTable(values) ? findByKey(key, context) : resource.toModel(inserted);
    }
    const result = await runStatement(
      () => statements.execute(on, shape, parameters, (q) => q.insertInto(table).values(row)),
      written(values),
    );
    const given = row[resource.idColumn];
    const generated = result.insertId;
    // An integer key the insert generated comes as a bigint; the store's keys are numbers where they fit.
    const key =
      given !== undefined
        ? given
        : typeof generated === 'bigint' && generated <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(generated)
          : generated;
    if (key === undefined)
      throw new TypeError(`defineStore: inserting into ${table} gave no key to read the row back by`);
    await writeToMany(t, resource, key, values.relationships, context, true);
    return findByKey(key, context);
  }

  /**
   * Updates a row (`update ... returning *`: the row as stored) and its to-many members; reads
   * it back only when there were no columns to set or the members live in its own table.
   */
  async function updateRow(model: Model, values: WriteValues, context: Context): Promise<Model> {
    const key = resource.key(model);
    const row = toRow(values, 'update', context);
    if (mysql) await mysqlRow(db, table, row, executorFor(db, context));
    const version = resource.version;
    if (version) row[version.column] = sql`${sql.ref(version.column)} + 1`;
    let updated: Row | undefined;
    if (Object.keys(row).length > 0) {
      const update = unlessChanged(
        executorFor(db, context).updateTable(table).set(row).where(resource.idColumn, '=', key),
        model,
        context,
      );
      if (mysql) {
        // No `update ... returning` on MySQL: the row is read back after (the rows the update matched tell a stale version).
        const [result] = await runStatement(() => update.execute(), written(values));
        stillCurrent(result?.numUpdatedRows, context);
      } else {
        const rows: Row[] = await runStatement(() => update.returningAll().execute(), written(values));
        stillCurrent(BigInt(rows.length), context);
        updated = rows[0];
      }
    }
    await writeToMany(t, resource, key, values.relationships, context, false);
    return updated && !membersInOwnTable(values) ? resource.toModel(updated) : findByKey(key, context);
  }

  /** Narrows a write to the version the request read, when it came with a matching `If-Match`. */
  function unlessChanged<Q extends { where(column: string, operator: '=', value: unknown): Q }>(
    query: Q,
    model: Model,
    context: Context,
  ): Q {
    const version = resource.version;
    return version && context.ifMatch ? query.where(version.column, '=', model[version.property]) : query;
  }

  /** 412 when a conditional write found its row at another version (a concurrent write won). */
  function stillCurrent(changed: bigint | undefined, context: Context): void {
    if (resource.version && context.ifMatch && changed === 0n) {
      throw staleVersion(resource.type);
    }
  }

  /** A to-many change is a write of the owner: its version moves on (conditionally under If-Match). */
  async function bumpVersion(model: Model, context: Context): Promise<void> {
    const version = resource.version;
    if (!version) return;
    const update = executorFor(db, context)
      .updateTable(table)
      .set({ [version.column]: sql`${sql.ref(version.column)} + 1` })
      .where(resource.idColumn, '=', resource.key(model));
    const results: Array<{ numUpdatedRows: bigint }> = await runStatement(() =>
      unlessChanged(update, model, context).execute(),
    );
    stillCurrent(results[0]?.numUpdatedRows, context);
  }

  async function changeMembersOf(
    model: Model,
    name: string,
    identifiers: readonly ResourceIdentifier[],
    remove: boolean,
    context: Context,
  ): Promise<void> {
    await bumpVersion(model, context);
    await changeMembers(t, resource, resource.key(model), name, identifiers, remove, context);
  }

  const layer = {
    existence: { check, member: resource.type },

    async find(id: string, context: Context): Promise<Model | null> {
      const key = resource.parseId(id);
      if (key === undefined) return null;
      const ex = executorFor(db, context);
      const [row] = await runStatement(() =>
        resource.scope
          ? resource.select(ex, context).where(resource.qualifiedId, '=', key).execute()
          : t.byKey(resource, ex, key),
      );
      return row ? resource.toModel(row) : null;
    },

    async findMany(ids: readonly string[], context: Context) {
      const parsed = ids.map((id) => resource.parseId(id));
      const keys = distinct(parsed);
      const byKey = keys.length === 0 ? new Map<string, Model>() : await t.modelsByKey(resource, keys, context);
      return parsed.map((key) => (key === undefined ? null : (byKey.get(keyText(key)) ?? null)));
    },

    async delete(model: Model, context: Context) {
      const [result] = await runStatement(() =>
        unlessChanged(
          executorFor(db, context).deleteFrom(table).where(resource.idColumn, '=', resource.key(model)),
          model,
          context,
        ).execute(),
      );
      if (result?.numDeletedRows !== 0n) return;
      if (resource.version && context.ifMatch) stillCurrent(0n, context);
      // Another request deleted the row after this one found it: it is gone, as a 404 says.
      throw goneError(resource.type, resource.key(model));
    },

    create: createRow,
    update: updateRow,

    addToRelationship(
      model: Model,
      relationship: ToMany,
      identifiers: readonly ResourceIdentifier[],
      context: Context,
    ) {
      return changeMembersOf(model, relationship.name, identifiers, false, context);
    },

    removeFromRelationship(
      model: Model,
      relationship: ToMany,
      identifiers: readonly ResourceIdentifier[],
      context: Context,
    ) {
      return changeMembersOf(model, relationship.name, identifiers, true, context);
    },

    ...(resource.version && {
      versionOf(model: Model): string {
        return String(model[resource.version!.property]);
      },
    }),

    queryRelated: (relationship: Relationship, model: Model, context: Context) =>
      queryRelated(t, resource, relationship, model, context),

    query(context: Context): ListQuery {
      const executor = executorFor(db, context);
      // A scope may read the request: its SQL is built anew each time.
      if (resource.scope) return ListQuery.from(table, executor, (on) => resource.select(on, context), undefined);
      return ListQuery.from(table, executor, (on) => resource.selectUnscoped(on), `${resource.type} list`);
    },

    async results(query: ListQuery, context: Context) {
      // The query was made (by `query`) steps ago: look again before running it.
      stopIfGone(context);
      return toModels(await runStatement(() => runList(query, query.shape, (q) => q)));
    },

    paginate(query: ListQuery, { offset, limit }: OffsetPagination, _context: Context) {
      return query.page(resource.qualifiedId, limit, offset);
    },

    paginateCursor(query: ListQuery, { sorts, after, limit }: CursorPage, context: Context) {
      const order = sorts.map(({ field, direction, count }): KeysetKey => {
        if (!count) return { column: field === 'id' ? resource.idColumn : resource.column(field), direction };
        const { shape, build } = countSubquery(t, resource, count, context);
        return { expression: build, shape, direction };
      });
      // The id as stored (an integer key is compared as one).
      const boundary = after?.map((value, i) => (sorts[i]!.field === 'id' ? resource.parseId(String(value)) : value));
      return query.keyset(order, boundary, limit);
    },
  };
  const methods = layer;
  const mapping = resource.mapping;
  /** The mapping's custom filters given as `{ where }`: they may stand inside `or` and `not`. */
  const composable = new Map<string, ComposableWhere>();
  for (const [name, filter] of Object.entries(mapping.filters ?? {}))
    if (typeof filter !== 'function') composable.set(name, filter.where);
  /** A list query's rows (counted, with `step`): compiled once for its shape, else built anew. */
  const runList = (query: ListQuery, shape: string | undefined, step: (q: SelectQuery) => SelectQuery) =>
    shape === undefined
      ? step(query.build()).execute()
      : statements.rows(query.executor, shape, query.values, (on) => step(query.build(on)));
  const related: Record<
    string,
    (models: readonly Model[], context: Context, relationship: Relationship) => Promise<ReadonlyArray<unknown>>
  > = {};
  for (const name of Object.keys(resource.relationships)) {
    related[name] = (models, context, relationship) => loadRelated(t, resource, relationship, models, context);
  }
  return {
    ...methods,
    related,
    where: (query: ListQuery, condition: FilterCondition, context: Context) =>
      whereQuery(t, resource, query, condition, context, composable),
    // The mapping's own filter names, which `Store<R>` types as the resource's custom filters.
    composableFilters: [...composable.keys()] as never[],
    orderBy: (
      query: ListQuery,
      field: string,
      direction: SortDirection,
      context: Context,
      path?: ConditionPath | CountPath,
    ) => {
      if (!path) return query.orderBy(resource.column(field), direction);
      if (!('attribute' in path)) {
        const { shape, build } = countSubquery(t, resource, path, context);
        return query.orderByExpression(shape, build, direction);
      }
      const mapping = resource.relationships[path.relationship];
      const related = t.tables.get(path.type);
      if (mapping?.type !== 'toOne' || !related)
        throw new TypeError(
          `defineStore: ${resource.type}.${path.relationship} is not mapped as toOne, or ${path.type} is not in the store`,
        );
      const alias = `sort_${path.relationship}`;
      return query.orderByRelated(
        { table: related.table, key: related.idColumn, foreignKey: mapping.foreignKey, alias },
        related.column(path.attribute),
        direction,
      );
    },
    countRelated: (relationship: ToMany, models: readonly Model[], context: Context) =>
      countRelated(t, resource, relationship, models, context),
    // The mapping's own filters and sorts get the Kysely builder itself.
    customFilters: Object.fromEntries(
      Object.entries(mapping.filters ?? {}).map(([name, filter]) => [
        name,
        (query: ListQuery, value: FilterValue, context: Context) =>
          query.apply((q) =>
            typeof filter === 'function'
              ? filter(q, value, context)
              : q.where((eb) => filter.where(eb, value, context)),
          ),
      ]),
    ),
    customSorts: Object.fromEntries(
      Object.entries(mapping.sorts ?? {}).map(([name, sort]) => [
        name,
        (query: ListQuery, direction: SortDirection, context: Context) =>
          query.apply((q) => sort(q, direction, context)),
      ]),
    ),
    ...(mapping.policy && { can: mapping.policy }),
    count: async (query: ListQuery, context: Context) => {
      stopIfGone(context);
      const counting = (q: SelectQuery) =>
        q
          .clearSelect()
          .clearOrderBy()
          .select((eb) => eb.fn.countAll().as('count'));
      const [row] = await runStatement(() =>
        runList(query, query.shape === undefined ? undefined : `${query.shape} count`, counting),
      );
      return Number((row as { count?: unknown } | undefined)?.count ?? 0);
    },
    // A count is one more statement per list: only where the schema's Index declares countable().
    countOnlyWhereDeclared: true,
  };
}
