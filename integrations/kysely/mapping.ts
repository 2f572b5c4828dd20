import type { Ability, Context, FilterValue, MaybePromise, SortDirection } from 'jsonapi-gen';
import type { Expression, SqlBool } from 'kysely';
import type { AnyExpressionBuilder } from './any-database.js';
import type { SelectQuery } from './select-query.js';

/** The table names of a Kysely `Database` type. */
export type TableName<DB> = keyof DB & string;

/** The column names of table `T`. */
export type ColumnName<DB, T extends TableName<DB>> = keyof DB[T] & string;

/** A to-one relationship whose foreign key is a column of this resource's table. */
export interface ToOneMapping<DB, T extends TableName<DB>> {
  type: 'toOne';
  /** The column of this table holding the related row's id. */
  foreignKey: ColumnName<DB, T>;
  /** The related resource's table; optional, checked against the related resource when given. */
  table?: TableName<DB>;
}

/** A to-many relationship whose foreign key is a column of the related table. */
export type ToManyMapping<DB> = {
  [R in TableName<DB>]: {
    type: 'toMany';
    /** The related resource's table. */
    table: R;
    /** The column of the related table holding this row's id. */
    foreignKey: ColumnName<DB, R>;
  };
}[TableName<DB>];

/** A to-many relationship through a join table. */
export type ThroughMapping<DB> = {
  [J in TableName<DB>]: {
    type: 'toMany';
    /** The related resource's table; optional, checked against the related resource when given. */
    table?: TableName<DB>;
    through: {
      /** The join table. */
      table: J;
      /** Its column holding this row's id. */
      from: ColumnName<DB, J>;
      /** Its column holding the related row's id. */
      to: ColumnName<DB, J>;
    };
  };
}[TableName<DB>];

/** How one relationship is stored. */
export type RelationshipMapping<DB, T extends TableName<DB>> =
  ToOneMapping<DB, T> | ToManyMapping<DB> | ThroughMapping<DB>;

/** How one resource is stored: its table, id column, column names and relationships. */
export interface TableMapping<DB, T extends TableName<DB>> {
  /** The table. */
  table: T;
  /** The primary key column. Default: `'id'`. */
  id?: ColumnName<DB, T>;
  /**
   * Model property → column, for columns whose name differs from the attribute's
   * (`{ createdAt: 'created_at', authorId: 'author_id' }`). Every other column keeps its name.
   */
  columns?: Record<string, ColumnName<DB, T>>;
  /** Relationship name → how it is stored. */
  relationships?: Record<string, RelationshipMapping<DB, T>>;
  /**
   * Turns a URL id into a key value, or `undefined` when it cannot be one (then 404). Default:
   * integer keys (decimal digits, up to 2^31 - 1).
   */
  parseId?: (id: string) => unknown;
  /**
   * Columns the server sets on every write, such as timestamps; merged over the client's values.
   *
   * @example
   * import type { Database } from './db.js';
   * const articles: TableMapping<Database, 'articles'> = {
   *   table: 'articles',
   *   serverColumns: (operation) => operation === 'create'
   *     ? { created_at: new Date().toISOString(), updated_at: new Date().toISOString() }
   *     : { updated_at: new Date().toISOString() },
   * };
   */
  serverColumns?: (operation: 'create' | 'update', context: Context) => Record<string, unknown>;
  /**
   * An integer column (default 1 on insert) holding the row's version: every write of the
   * resource through the store (its attributes, to-one and to-many relationships) adds one to it
   * in the same statement, reads carry it in their `ETag`, and a write whose `If-Match` names
   * it changes the row only while it is still that version (`where version = ?`; 412
   * otherwise), so of concurrent writers holding one tag exactly one wins.
   *
   * @example
   * import type { Database } from './db.js';
   * const articles: TableMapping<Database, 'articles'> = { table: 'articles', version: 'version' };
   */
  version?: ColumnName<DB, T>;
  /** The policy the schema's `can(ability)` callbacks consult for this resource's models. */
  policy?: (ability: Ability, model: Record<string, unknown>, context: Context) => MaybePromise<boolean>;
  /**
   * The schema's custom filters (`CustomFilter.make(name)`), by name: a function of the whole
   * query (applied to the whole query only: refused inside `filter[or]` and `filter[not]`), or a
   * `CustomWhere` (one condition, which may also stand inside `filter[or]` and `filter[not]`).
   */
  filters?: Record<string, CustomFilterImplementation>;
  /** The schema's custom sorts (`CustomSort.make(name)`), by name. */
  sorts?: Record<string, (query: SelectQuery, direction: SortDirection, context: Context) => SelectQuery>;
  /**
   * Row-level read authorization: narrows every read of this resource's table to the rows the
   * request may see. It receives the `select <table>.* from <table>` every read of this
   * resource starts from (and the request's context) and returns it narrowed, with `where`
   * only. The store applies it to EVERY read of the resource: `find` (Show, and so the target
   * of Update, Delete and relationship writes, and the existence check of linkage written to
   * any relationship that points here), `query` (Index, its filters, sorts and `meta.total`),
   * `loadRelated` (includes, related and relationship endpoints of every resource relating
   * here) and `queryRelated`. A row outside the scope is, to the request, a row that does not
   * exist: 404, never 403; never serialized, linked or counted. Replacing a to-many
   * relationship (PATCH) leaves members outside the scope where they are.
   *
   * Rules: qualify columns with the table (`'articles.status'`: relationship reads join the
   * join table); narrow with `where` (a subquery, `in`, `exists`), never a join that could
   * repeat rows; the callback must not throw for anonymous requests.
   *
   * @example
   * import type { Database } from './db.js';
   * const articles: TableMapping<Database, 'articles'> = {
   *   table: 'articles',
   *   scope: (query, ctx) => query.where((eb) =>
   *     eb.or([eb('articles.status', '=', 'published'), eb('articles.author_id', '=', Number(ctx.getAttribute('user') ?? 0))])),
   * };
   */
  scope?: (query: SelectQuery, context: Context) => SelectQuery;
}

/**
 * A custom filter as one condition on the resource's row: `where` gives the expression that
 * holds for the rows the filter keeps (columns qualified with the table). Unlike a function of
 * the whole query, it composes: `filter[or][0][search]=ts&filter[or][1][status]=draft` works,
 * and so does `filter[not][search]=ts`.
 *
 * @example
 * const search: CustomWhere = {
 *   where: (eb, value) => eb.or([value].flat().map((term) => eb('articles.title', 'like', likePattern(term, 'contains')))),
 * };
 */
export interface CustomWhere {
  where: (eb: AnyExpressionBuilder, value: FilterValue, context: Context) => Expression<SqlBool>;
}

/** A custom filter of a mapping: a function of the whole query, or a composable `CustomWhere`. */
export type CustomFilterImplementation =
  ((query: SelectQuery, value: FilterValue, context: Context) => SelectQuery) | CustomWhere;

/** A mapping of any table of `DB`. */
export type AnyTableMapping<DB> = { [T in TableName<DB>]: TableMapping<DB, T> }[TableName<DB>];

export { parseIntegerId } from 'jsonapi-gen/internal';
