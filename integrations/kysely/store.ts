import { type Compilable, type CompiledQuery, type Kysely, type QueryResult, SqliteAdapter, sql } from 'kysely';
import type {
  Authorizable,
  Context,
  Countable,
  CustomFilterable,
  CustomSortable,
  Deletable,
  Filterable,
  Findable,
  Listable,
  OffsetPagination,
  Paginatable,
  Creatable,
  Linkage,
  MaybePromise,
  RelatedLoaders,
  Relationship,
  ResourceIdentifier,
  ResourceTypes,
  FilterValue,
  Sortable,
  SortDirection,
  ToMany,
  ToManyMutable,
  Updatable,
  Versioned,
  WriteValues,
} from 'jsonapi-gen';
import { staleVersion } from 'jsonapi-gen';
import { andThen, flow, type Steps } from 'jsonapi-gen/internal';
import { runStatement, type Written } from './errors.js';
import type { StoreMapping, StoreModel } from './checked.js';
import { orderByColumn, whereColumn } from './filters.js';
import type { SelectQuery } from './select-query.js';
import { type AnyTableMapping, type RelationshipMapping, parseIntegerId } from './mapping.js';
import { extendPlan, planOf, plannedQuery } from './plan.js';
import { allRows, type DirectSqlite, directSqlite, runDirect } from './statements.js';
import { connectionOf, executorFor } from './transaction.js';

/** A row as the database returns it: keyed by column. */
type Row = Record<string, unknown>;

/** A row as the serializer reads it: keyed by attribute (model property) name. */
export type Model = Record<string, unknown>;

/**
 * The data layer a Kysely-backed resource of types `R` implements: what the generated
 * `XDataLayer` asks, typed by `R` (the generated `XTypes`). The runtime counts only collections
 * whose Index is declared `countable()`.
 */
export type KyselyDataLayer<R extends ResourceTypes = ResourceTypes> = Findable<StoreModel<R>> &
  Deletable<StoreModel<R>> &
  Listable<StoreModel<R>, SelectQuery> &
  Paginatable<SelectQuery> &
  Countable<SelectQuery> &
  RelatedLoaders<StoreModel<R>, R['related']> &
  Creatable<StoreModel<R>> &
  Updatable<StoreModel<R>> &
  ToManyMutable<StoreModel<R>> &
  Partial<Versioned<StoreModel<R>>> &
  Filterable<SelectQuery, string> &
  CustomFilterable<SelectQuery, R['customFilters']> &
  Sortable<SelectQuery, string> &
  CustomSortable<SelectQuery, R['customSorts']> &
  (R['policy'] extends true ? Authorizable<StoreModel<R>> : Partial<Authorizable<StoreModel<R>>>);

/** The data layers of a store, by resource type. */
export type Store<R extends { [K in keyof R]: ResourceTypes }> = { readonly [K in keyof R]: KyselyDataLayer<R[K]> };

/** The column under which a join-table query returns the owner's key. */
const OWNER = '__jsonapi_owner';

/** One resource's table, with everything a statement needs precomputed. */
class TableResource {
  readonly type: string;
  readonly table: string;
  readonly idColumn: string;
  readonly qualifiedId: string;
  readonly parseId: (id: string) => unknown;
  readonly relationships: Readonly<Record<string, RelationshipMapping<any, any>>>;
  readonly serverColumns: AnyTableMapping<any>['serverColumns'];
  readonly scope: AnyTableMapping<any>['scope'];
  /** The version column and the model property that holds it, when the mapping names one. */
  readonly version: { column: string; property: string } | undefined;
  readonly mapping: AnyTableMapping<any>;
  readonly #properties = new Map<string, string>();
  readonly #columns = new Map<string, string>();

  constructor(type: string, mapping: AnyTableMapping<any>) {
    this.type = type;
    this.table = mapping.table;
    this.idColumn = mapping.id ?? 'id';
    this.qualifiedId = `${this.table}.${this.idColumn}`;
    this.parseId = mapping.parseId ?? parseIntegerId;
    this.serverColumns = mapping.serverColumns;
    this.scope = mapping.scope;
    this.mapping = mapping;
    this.relationships = mapping.relationships ?? {};
    if (this.idColumn !== 'id') this.#properties.set(this.idColumn, 'id');
    for (const [property, column] of Object.entries(mapping.columns ?? {})) {
      this.#properties.set(column, property);
      this.#columns.set(property, column);
    }
    this.version = mapping.version === undefined ? undefined : { column: mapping.version, property: this.#properties.get(mapping.version) ?? mapping.version };
  }

  /** The model property a column is read into. */
  property(column: string): string {
    return this.#properties.get(column) ?? column;
  }

  /** The column an attribute (model property) is stored in. */
  column(property: string): string {
    return this.#columns.get(property) ?? property;
  }

  /** The column a `Where` filter on `field` compares: an attribute's, or a to-one relationship's foreign key. */
  filterColumn(field: string): string {
    const relationship = this.relationships[field];
    return relationship?.type === 'toOne' ? relationship.foreignKey : this.column(field);
  }

  /** The key of a model, as stored. */
  key(model: Model): unknown {
    return model[this.property(this.idColumn)];
  }

  /**
   * `select table.* from table`, narrowed by the mapping's `scope` for this request: every read
   * of this resource starts here.
   */
  select(db: Kysely<any>, context: Context): SelectQuery {
    const query = db.selectFrom(this.table).selectAll(this.table);
    if (!this.scope) return query;
    const scoped = this.scope(query, context) as SelectQuery | undefined;
    if (!scoped || typeof (scoped as { toOperationNode?: unknown }).toOperationNode !== 'function') {
      throw new TypeError(`defineStore: the scope of ${this.type} must return the query it was given, narrowed`);
    }
    return scoped;
  }

  /** The same without the scope: only to read back a row the request has just written. */
  selectUnscoped(db: Kysely<any>): SelectQuery {
    return db.selectFrom(this.table).selectAll(this.table);
  }

  /** `select table.id from table where <scope>`, or undefined when the resource has no scope. */
  visibleKeys(db: Kysely<any>, context: Context): SelectQuery | undefined {
    return this.scope ? this.select(db, context).clearSelect().select(this.qualifiedId) : undefined;
  }

  /** A row, renamed to model properties. */
  toModel(row: Record<string, unknown>): Model {
    const model: Model = {};
    for (const column in row) model[this.#properties.get(column) ?? column] = row[column];
    return model;
  }

  /**
   * The rows of one statement (so all with the same columns) as models, columns renamed once
   * for all of them; `skip` names a column to leave out.
   */
  toModels(rows: readonly Record<string, unknown>[], skip?: string): Model[] {
    if (rows.length === 0) return [];
    const columns = Object.keys(rows[0]!).filter((column) => column !== skip);
    const properties = columns.map((column) => this.#properties.get(column) ?? column);
    const models = new Array<Model>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const model: Model = {};
      for (let i = 0; i < columns.length; i++) model[properties[i]!] = row[columns[i]!];
      models[r] = model;
    }
    return models;
  }
}

/** The most values a statement compiled once per shape binds (`in (?, ?, ...)`); longer lists are built anew. */
const MAX_CACHED_ARITY = 100;
/** The most shapes kept compiled. */
const MAX_SHAPES = 2000;

/**
 * Statements whose SQL depends only on their shape (reads by key and by a list of keys, an
 * Index's `Where` filters, `SortColumn` sorts and page: see plan.ts; inserts by their columns),
 * compiled once per shape and run with each call's values: Kysely builds and compiles every
 * query anew, which costs about as much as a point lookup on SQLite. Only for reads no scope
 * narrows (a scope may read the request), and only on a database without plugins (a plugin may
 * keep state per compiled query). A shape names every identifier it depends on, quoted, so
 * that two statements never share one.
 */
class CompiledStatements {
  readonly #db: Kysely<any>;
  readonly #cache = new Map<string, CompiledQuery | null>();
  readonly #enabled: boolean;
  /** The SQLite database reads run on directly, once known (see `sqliteDialect`). */
  #direct: DirectSqlite | undefined;

  constructor(db: Kysely<any>) {
    this.#db = db;
    this.#enabled = db.getExecutor().plugins.length === 0;
    if (this.#enabled && db.getExecutor().adapter instanceof SqliteAdapter) {
      // SQLite's one connection is always the same object: look it up once; until then, Kysely runs everything.
      db.getExecutor()
        .provideConnection(async (connection) => connection)
        .then((connection) => (this.#direct = directSqlite(connection)))
        .catch(() => undefined);
    }
  }

  /** Whether statements are compiled once per shape at all (not with plugins). */
  get enabled(): boolean {
    return this.#enabled;
  }

  /**
   * Runs the statement `build` makes from `db` for `shape`, which binds exactly `values`, in
   * order, on `executor` (the request's transaction, or `db`). A shape whose statement binds
   * anything else (a value written into the SQL text, an expression) is built anew every time.
   */
  execute(executor: Kysely<any>, shape: string, values: readonly unknown[], build: (db: Kysely<any>) => Compilable): MaybePromise<QueryResult<any>> {
    let compiled = this.#enabled && values.length <= MAX_CACHED_ARITY ? this.#cache.get(shape) : null;
    if (compiled === undefined) {
      const query = build(this.#db).compile();
      const binds = query.parameters.length === values.length && query.parameters.every((value, i) => value === values[i]);
      // Shapes are bounded by the API's filters, sorts and arities; a host inventing them without end starts over.
      if (this.#cache.size >= MAX_SHAPES) this.#cache.clear();
      this.#cache.set(shape, (compiled = binds ? query : null));
    }
    if (compiled === null) return executor.executeQuery(build(executor));
    const direct = this.#direct;
    // Outside transactions a read needs no connection of its own: SQLite runs it now, as
    // Kysely would once its mutex let it. A transaction, the one thing a read must not be run
    // inside of, is checked for (better-sqlite3 reads alongside an open stream, and the
    // statement cache never hands out a statement still iterating).
    if (direct !== undefined && executor === this.#db && !direct.inTransaction) {
      const statement = direct.prepare(compiled.sql);
      if (statement.reader === true) return { rows: allRows(statement, values) };
    }
    // Without plugins there is no result to transform: inside our transaction, straight to its
    // connection, which is the transaction's alone (on SQLite, straight to the database).
    const connection = connectionOf(executor);
    if (connection === undefined) return executor.executeQuery({ ...compiled, parameters: values });
    const sqlite = directSqlite(connection);
    return sqlite ? runDirect(sqlite, compiled.sql, values) : connection.executeQuery({ ...compiled, parameters: values });
  }

  /** The rows of `execute`. */
  rows(executor: Kysely<any>, shape: string, values: readonly unknown[], build: (db: Kysely<any>) => Compilable): MaybePromise<Row[]> {
    return andThen(this.execute(executor, shape, values, build), (result) => result.rows as Row[]);
  }
}

/** A value as drivers bind it: dates as ISO strings. */
function bindable(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

function distinct(values: readonly unknown[]): unknown[] {
  const seen = new Set<unknown>();
  const keys: unknown[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    // The keys of one column share a type: a number or a string is itself, anything else (a Date) its text.
    const key = typeof value === 'number' || typeof value === 'string' ? value : String(value);
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push(value);
  }
  return keys;
}

/**
 * Backs resources by tables of one Kysely database: give every resource's table mapping at once
 * (keyed by resource type) so that relationships read their related rows with the related
 * resource's own mapping. Each entry of the result is a data layer to spread into the
 * resource's schema: find, delete, query, results, paginate, count,
 * loadRelated (at most one statement per call), queryRelated, and the writes create, update,
 * addToRelationship, removeFromRelationship. Every statement runs on the request's transaction
 * when `kyselyTransaction` / `withTransaction` bound one. A read request loads a row by key at
 * most once: a to-one include naming only rows it has loaded already (`include=author,
 * comments.author`) runs no statement. Ids are integer keys unless `parseId`
 * says otherwise; values are always bound parameters. A mapping's `scope` narrows every read
 * of its resource, wherever it happens (see `TableMapping.scope`).
 *
 * @example
 * const store = defineStore(db, {
 *   people: { table: 'people', columns: { createdAt: 'created_at' },
 *     relationships: { articles: { type: 'toMany', table: 'articles', foreignKey: 'author_id' } } },
 *   articles: { table: 'articles', columns: { createdAt: 'created_at', authorId: 'author_id' },
 *     relationships: {
 *       author: { type: 'toOne', foreignKey: 'author_id' },
 *       tags: { type: 'toMany', through: { table: 'article_tags', from: 'article_id', to: 'tag_id' } },
 *     } },
 *   tags: { table: 'tags' },
 * });
 * api.resource({ ...schema.articles, ...store.articles });
 */
export function defineStore<DB, R extends { [K in keyof R]: ResourceTypes }>(db: Kysely<DB>, resources: StoreMapping<DB, R>): Store<R> {
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
 * const store = defineTableStore(db, { tags: { table: 'tags' } });
 * api.resource({ ...tagsSchema, ...store.tags });
 */
export function defineTableStore<DB, M extends Record<string, AnyTableMapping<DB>>>(db: Kysely<DB>, resources: M): Store<Record<keyof M, UntypedResource>> {
  return tableStore(db, resources) as Store<Record<keyof M, UntypedResource>>;
}

function tableStore<DB>(db: Kysely<DB>, resources: Record<string, AnyTableMapping<DB>>): Record<string, KyselyDataLayer> {
  const tables = new Map<string, TableResource>();
  for (const [type, mapping] of Object.entries(resources)) tables.set(type, new TableResource(type, mapping as unknown as AnyTableMapping<any>));
  const store: Record<string, KyselyDataLayer> = {};
  const statements = new CompiledStatements(db as Kysely<any>);
  const loaded: LoadedRows = new WeakMap();
  for (const resource of tables.values()) store[resource.type] = dataLayer(db as Kysely<any>, resource, tables, statements, loaded);
  return store;
}

/**
 * The models a read request has loaded by key, per table: a to-one include that names only rows
 * the request has read already (`include=author,comments.author`: the same people) costs no
 * statement. Only for GET and HEAD requests, outside transactions: a write request may change a
 * row after reading it.
 */
type LoadedRows = WeakMap<Context, Map<TableResource, Map<string, Model>>>;

function isRead(context: Context): boolean {
  // A context a host made up for a direct call may have no request: then no reuse.
  const method = (context.http as Context['http'] | undefined)?.method;
  return method === 'GET' || method === 'HEAD';
}

function dataLayer(
  db: Kysely<any>,
  resource: TableResource,
  tables: ReadonlyMap<string, TableResource>,
  statements: CompiledStatements,
  loaded: LoadedRows,
): KyselyDataLayer {
  const { table } = resource;
  const toModels = (rows: readonly Record<string, unknown>[]) => resource.toModels(rows);

  /** The related resource and the mapping of a relationship, checked. */
  const relation = (relationship: Relationship) => {
    const where = `${resource.type}.${relationship.name}`;
    const mapping = resource.relationships[relationship.name];
    if (!mapping) throw new TypeError(`defineStore: ${where} has no entry in relationships`);
    const related = tables.get(relationship.relatedType);
    if (!related) throw new TypeError(`defineStore: ${where} relates to "${relationship.relatedType}", which the store does not map`);
    if (mapping.table !== undefined && mapping.table !== related.table) {
      throw new TypeError(`defineStore: ${where} names table "${mapping.table}", but ${related.type} is stored in "${related.table}"`);
    }
    if ((mapping.type === 'toOne') !== (relationship.cardinality === 'one')) {
      throw new TypeError(`defineStore: ${where} is mapped as ${mapping.type} but declared ${relationship.cardinality === 'one' ? 'ToOne' : 'ToMany'}`);
    }
    return { mapping, related };
  };

  /** The resource of a written identifier. */
  const resourceOf = (identifier: ResourceIdentifier): TableResource => {
    const found = tables.get(identifier.type);
    if (!found) throw new TypeError(`defineStore: the store does not map "${identifier.type}"`);
    return found;
  };

  /** Columns to write from checked values: attributes, to-one foreign keys, server-set columns. */
  const toRow = (values: WriteValues, operation: 'create' | 'update', context: Context) => {
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(values.attributes)) row[resource.column(name)] = bindable(value);
    for (const [name, linkage] of Object.entries(values.relationships)) {
      const mapping = resource.relationships[name];
      if (mapping?.type !== 'toOne' || Array.isArray(linkage)) continue;
      row[mapping.foreignKey] = linkage === null ? null : resourceOf(linkage).parseId(linkage.id);
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

  const toManyMapping = (name: string) => {
    const mapping = resource.relationships[name];
    if (!mapping || mapping.type !== 'toMany') throw new TypeError(`defineStore: ${resource.type}.${name} is not mapped as toMany`);
    return mapping;
  };

  /**
   * The resource a to-many relationship's members belong to: by the mapping's table, else by the
   * identifiers written. Undefined only for a join-table mapping without `table`, cleared.
   */
  const membersOf = (name: string, mapping: { table?: string }, identifiers: readonly ResourceIdentifier[]): TableResource | undefined => {
    const byTable = mapping.table === undefined ? undefined : [...tables.values()].filter((t) => t.table === mapping.table);
    if (byTable?.length === 1) return byTable[0];
    if (identifiers.length > 0) return resourceOf(identifiers[0]!);
    if ([...tables.values()].some((t) => t.scope)) {
      throw new TypeError(`defineStore: ${resource.type}.${name} needs its "table" so that replacing it can keep the members a scope hides`);
    }
    return undefined;
  };

  /**
   * Adds (or, with `remove`, removes) members of a to-many relationship. Removal only touches
   * members inside the related resource's scope (the runtime has checked them with `find`
   * already; this holds for direct calls too).
   */
  function* changeMembers(key: unknown, name: string, identifiers: readonly ResourceIdentifier[], remove: boolean, context: Context): Steps<void> {
    const mapping = toManyMapping(name);
    if (identifiers.length === 0) return;
    const related = membersOf(name, mapping, identifiers)!;
    const keys = identifiers.map((i) => resourceOf(i).parseId(i.id));
    const ex = executorFor(db);
    const visible = remove ? related.visibleKeys(ex, context) : undefined;
    if ('through' in mapping && mapping.through) {
      const { table: join, from, to } = mapping.through;
      if (remove) {
        let statement = ex.deleteFrom(join).where(from, '=', key).where(to, 'in', keys);
        if (visible) statement = statement.where(to, 'in', visible);
        yield runStatement(() => statement.execute());
      } else {
        const rows = keys.map((k) => ({ [from]: key, [to]: k }));
        yield runStatement(() => statements.execute(ex, `insert ${JSON.stringify([join, from, to])} ${keys.length}`, keys.flatMap((k) => [key, k]), (on) => on.insertInto(join).values(rows)));
      }
      return;
    }
    const { foreignKey } = mapping as { foreignKey: string };
    let update = ex.updateTable(related.table).set({ [foreignKey]: remove ? null : key }).where(related.idColumn, 'in', keys);
    if (remove) update = update.where(foreignKey, '=', key);
    if (visible) update = update.where(related.idColumn, 'in', visible);
    yield runStatement(() => update.execute());
  }

  /**
   * Makes a to-many relationship hold exactly `identifiers` among the members the request may
   * see: members outside the related resource's scope stay (the client cannot see them, so it
   * cannot mean to unlink them).
   */
  function* replaceMembers(key: unknown, name: string, identifiers: readonly ResourceIdentifier[], context: Context): Steps<void> {
    const mapping = toManyMapping(name);
    const related = membersOf(name, mapping, identifiers);
    const ex = executorFor(db);
    const visible = related?.visibleKeys(ex, context);
    if ('through' in mapping && mapping.through) {
      const { table: join, from, to } = mapping.through;
      let clear = ex.deleteFrom(join).where(from, '=', key);
      if (visible) clear = clear.where(to, 'in', visible);
      yield runStatement(() => clear.execute());
    } else {
      const { foreignKey, table: relatedTable } = mapping as { foreignKey: string; table: string };
      const keep = identifiers.map((i) => resourceOf(i).parseId(i.id));
      const idColumn = related?.idColumn ?? 'id';
      let clear = ex.updateTable(relatedTable).set({ [foreignKey]: null }).where(foreignKey, '=', key);
      if (keep.length > 0) clear = clear.where(idColumn, 'not in', keep);
      if (visible) clear = clear.where(idColumn, 'in', visible);
      yield runStatement(() => clear.execute());
    }
    yield* changeMembers(key, name, identifiers, false, context);
  }

  /**
   * Reads back the row a create or update has just written, without the scope: the request
   * wrote it (an update's target passed the scope in `find`; a create's row is the client's).
   */
  function* findByKey(key: unknown): Steps<Model> {
    const [row]: Row[] = yield runStatement(() => byKey(resource, executorFor(db), key));
    if (!row) throw new TypeError(`defineStore: ${resource.type} ${String(key)} was written but cannot be read back`);
    return resource.toModel(row);
  }

  /** Sets the to-many relationships written; a row just created has no members to clear first. */
  function* writeToMany(key: unknown, relationships: Record<string, Linkage>, context: Context, created: boolean): Steps<void> {
    for (const [name, linkage] of Object.entries(relationships)) {
      if (!Array.isArray(linkage)) continue;
      if (created) yield* changeMembers(key, name, linkage, false, context);
      else yield* replaceMembers(key, name, linkage, context);
    }
  }

  /** The models of `keys` in `table` (within its scope), by key as a string: one `in (...)` read. */
  const modelsByKey = (table: TableResource, keys: readonly unknown[], context: Context): MaybePromise<Map<string, Model>> => {
    const ex = executorFor(db);
    let known: Map<string, Model> | undefined;
    if (ex === db && isRead(context)) {
      let byTable = loaded.get(context);
      if (byTable === undefined) loaded.set(context, (byTable = new Map()));
      known = byTable.get(table);
      if (known === undefined) byTable.set(table, (known = new Map()));
      else if (keys.every((key) => known!.has(String(key)))) return known;
    }
    const rows = runStatement(() =>
      table.scope
        ? table.select(ex, context).where(table.qualifiedId, 'in', keys).execute()
        : statements.rows(ex, `${table.type} in ${keys.length}`, keys, (on) => table.selectUnscoped(on).where(table.qualifiedId, 'in', keys)),
    );
    return andThen(rows, (found) => {
      const models = table.toModels(found);
      const byKey = new Map(found.map((row, i) => [String(row[table.idColumn]), models[i]!]));
      if (known) for (const [key, model] of byKey) known.set(key, model);
      return byKey;
    });
  };

  /** The row of `key` in `table`, read without the scope (a compiled-once statement). */
  const byKey = (table: TableResource, ex: Kysely<any>, key: unknown) =>
    statements.rows(ex, `${table.type} by key`, [key], (on) => table.selectUnscoped(on).where(table.qualifiedId, '=', key));

  /** Inserts a row, its to-many members, and reads it back. */
  function* createRow(values: WriteValues, context: Context): Steps<Model> {
    const row = toRow(values, 'create', context);
    if (values.id !== undefined) row[resource.idColumn] = resource.parseId(values.id);
    // Kysely leaves out columns whose value is undefined; so does the statement's shape.
    const columns = Object.keys(row).filter((c) => row[c] !== undefined);
    const [inserted]: Row[] = yield runStatement(
      () =>
        statements.rows(executorFor(db), `${resource.type} insert ${JSON.stringify(columns)}`, columns.map((c) => row[c]), (on) =>
          on.insertInto(table).values(row).returning(`${resource.idColumn} as key`),
        ),
      written(values),
    );
    if (!inserted) throw new TypeError(`defineStore: inserting into ${table} returned no row`);
    const key = inserted.key;
    yield* writeToMany(key, values.relationships, context, true);
    return yield* findByKey(key);
  }

  /** Updates a row and its to-many members, and reads it back. */
  function* updateRow(model: Model, values: WriteValues, context: Context): Steps<Model> {
    const key = resource.key(model);
    const row = toRow(values, 'update', context);
    const version = resource.version;
    if (version) row[version.column] = sql`${sql.ref(version.column)} + 1`;
    if (Object.keys(row).length > 0) {
      const results: Array<{ numUpdatedRows: bigint }> = yield runStatement(
        () => unlessChanged(executorFor(db).updateTable(table).set(row).where(resource.idColumn, '=', key), model, context).execute(),
        written(values),
      );
      stillCurrent(results[0]?.numUpdatedRows, context);
    }
    yield* writeToMany(key, values.relationships, context, false);
    return yield* findByKey(key);
  }

  /** Narrows a write to the version the request read, when it came with a matching `If-Match`. */
  function unlessChanged<Q extends { where(column: string, operator: '=', value: unknown): Q }>(query: Q, model: Model, context: Context): Q {
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
  function* bumpVersion(model: Model, context: Context): Steps<void> {
    const version = resource.version;
    if (!version) return;
    const update = executorFor(db).updateTable(table).set({ [version.column]: sql`${sql.ref(version.column)} + 1` }).where(resource.idColumn, '=', resource.key(model));
    const results: Array<{ numUpdatedRows: bigint }> = yield runStatement(() => unlessChanged(update, model, context).execute());
    stillCurrent(results[0]?.numUpdatedRows, context);
  }

  function* changeMembersOf(model: Model, name: string, identifiers: readonly ResourceIdentifier[], remove: boolean, context: Context): Steps<void> {
    yield* bumpVersion(model, context);
    yield* changeMembers(resource.key(model), name, identifiers, remove, context);
  }

  const layer = {
    find(id: string, context: Context): MaybePromise<Model | null> {
      const key = resource.parseId(id);
      if (key === undefined) return null;
      const ex = executorFor(db);
      const rows = runStatement(() =>
        resource.scope ? resource.select(ex, context).where(resource.qualifiedId, '=', key).execute() : byKey(resource, ex, key),
      );
      return andThen(rows, ([row]) => (row ? resource.toModel(row) : null));
    },

    findMany(ids: readonly string[], context: Context) {
      const parsed = ids.map((id) => resource.parseId(id));
      const keys = distinct(parsed);
      return andThen(keys.length === 0 ? new Map<string, Model>() : modelsByKey(resource, keys, context), (byKey) =>
        parsed.map((key) => (key === undefined ? null : (byKey.get(String(key)) ?? null))),
      );
    },

    async delete(model: Model, context: Context) {
      const [result] = await runStatement(() =>
        unlessChanged(executorFor(db).deleteFrom(table).where(resource.idColumn, '=', resource.key(model)), model, context).execute(),
      );
      if (resource.version && context.ifMatch && result?.numDeletedRows === 0n) stillCurrent(0n, context);
    },

    create(values: WriteValues, context: Context) {
      return flow(createRow(values, context));
    },

    update(model: Model, values: WriteValues, context: Context) {
      return flow(updateRow(model, values, context));
    },

    addToRelationship(model: Model, relationship: ToMany, identifiers: readonly ResourceIdentifier[], context: Context) {
      return flow(changeMembersOf(model, relationship.name, identifiers, false, context));
    },

    removeFromRelationship(model: Model, relationship: ToMany, identifiers: readonly ResourceIdentifier[], context: Context) {
      return flow(changeMembersOf(model, relationship.name, identifiers, true, context));
    },

    ...(resource.version && {
      versionOf(model: Model): string {
        return String(model[resource.version!.property]);
      },
    }),

    query(context: Context) {
      const executor = executorFor(db);
      if (resource.scope || !statements.enabled) return resource.select(executor, context);
      return plannedQuery({ table, shape: `${resource.type} list`, values: [], build: (on) => resource.selectUnscoped(on), executor });
    },

    async results(query: SelectQuery, _context: Context) {
      const plan = planOf(query);
      return toModels(await runStatement(() => (plan ? statements.rows(plan.executor, plan.shape, plan.values, plan.build) : query.execute())));
    },

    paginate(query: SelectQuery, { offset, limit }: OffsetPagination, _context: Context) {
      // The key as a last sort keeps pages stable when the requested sort has ties.
      const page = (q: SelectQuery) => q.orderBy(resource.qualifiedId).limit(limit).offset(offset);
      const plan = planOf(query);
      return plan ? extendPlan(plan, 'page', [limit, offset], page) : page(query);
    },

    async loadRelated(relationship: Relationship, models: readonly Model[], context: Context) {
      const { mapping, related } = relation(relationship);
      const ex = executorFor(db);
      if (mapping.type === 'toOne') {
        const property = resource.property(mapping.foreignKey);
        const keys = distinct(models.map((m) => m[property]));
        if (keys.length === 0) return models.map(() => null);
        const byKey = await modelsByKey(related, keys, context);
        return models.map((m) => (m[property] === null || m[property] === undefined ? null : (byKey.get(String(m[property])) ?? null)));
      }
      const keys = distinct(models.map((m) => resource.key(m)));
      const groups = new Map<string, Model[]>(keys.map((k) => [String(k), []]));
      if (keys.length > 0) {
        const through = 'through' in mapping ? mapping.through : undefined;
        const owner = through ? OWNER : (mapping as { foreignKey: string }).foreignKey;
        const members = (start: SelectQuery) => {
          if (!through) return start.where(`${related.table}.${owner}`, 'in', keys).orderBy(related.qualifiedId);
          const { table: join, from, to } = through;
          return start
            .innerJoin(join, `${join}.${to}`, related.qualifiedId)
            .select(`${join}.${from} as ${OWNER}`)
            .where(`${join}.${from}`, 'in', keys)
            .orderBy(related.qualifiedId);
        };
        const rows = await runStatement(() =>
          related.scope
            ? members(related.select(ex, context)).execute()
            : statements.rows(ex, `${resource.type}.${relationship.name} in ${keys.length}`, keys, (on) => members(related.selectUnscoped(on))),
        );
        // A related row joined to several owners is one model.
        const converted = related.toModels(rows, owner === OWNER ? OWNER : undefined);
        const seen = new Map<string, Model>();
        for (let i = 0; i < rows.length; i++) {
          const row = rows[i]!;
          const id = String(row[related.idColumn]);
          let model = seen.get(id);
          if (!model) seen.set(id, (model = converted[i]!));
          groups.get(String(row[owner]))?.push(model);
        }
      }
      return models.map((m) => groups.get(String(resource.key(m))) ?? []);
    },

    queryRelated(relationship: Relationship, model: Model, context: Context) {
      const { mapping, related } = relation(relationship);
      const query = related.select(executorFor(db), context);
      if (mapping.type === 'toOne') return query.where(related.qualifiedId, '=', model[resource.property(mapping.foreignKey)] ?? null);
      if ('through' in mapping && mapping.through) {
        const { table: join, from, to } = mapping.through;
        return query.innerJoin(join, `${join}.${to}`, related.qualifiedId).where(`${join}.${from}`, '=', resource.key(model));
      }
      return query.where(`${related.table}.${(mapping as { foreignKey: string }).foreignKey}`, '=', resource.key(model));
    },
  };
  const { loadRelated, ...methods } = layer;
  const mapping = resource.mapping;
  const related: Record<string, (models: readonly Model[], context: Context, relationship: Relationship) => Promise<ReadonlyArray<unknown>>> = {};
  for (const name of Object.keys(resource.relationships)) {
    related[name] = (models, context, relationship) => loadRelated(relationship, models, context);
  }
  return {
    ...methods,
    related,
    where: (query: SelectQuery, field: string, values: readonly string[]) => whereColumn(query, resource.filterColumn(field), values),
    orderBy: (query: SelectQuery, field: string, direction: SortDirection) => orderByColumn(query, resource.column(field), direction),
    customFilters: mapping.filters ?? {},
    customSorts: mapping.sorts ?? {},
    ...(mapping.policy && { can: mapping.policy }),
    count: async (query: SelectQuery, _context: Context) => {
      const counting = (q: SelectQuery) => q.clearSelect().clearOrderBy().select((eb) => eb.fn.countAll().as('count'));
      const plan = planOf(query);
      const [row] = await runStatement(() =>
        plan ? statements.rows(plan.executor, `${plan.shape} count`, plan.values, (on) => counting(plan.build(on))) : counting(query).execute(),
      );
      return Number((row as { count?: unknown } | undefined)?.count ?? 0);
    },
  };
}
