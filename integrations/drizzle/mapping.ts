/**
 * The mapping of one resource type to a host's Drizzle table: the table object, the column of
 * each attribute (its own property name unless `columns` renames it), each relationship (from
 * the host's `relations()` by the relationship's name, or an explicit foreign key or join
 * table), the read scope, policy, custom filters and sorts as Drizzle `SQL`, the version column
 * and the columns the server sets.
 */
import type { Ability, Context, FilterValue, MaybePromise, SortDirection } from 'jsonapi-gen';
import type { SQL, Table } from 'drizzle-orm';

/** The column keys (property names) of table `T`. */
export type ColumnKey<T extends Table> = keyof T['_']['columns'] & string;

/** A column object of table `T` (`articles.authorId`): a column of another table does not fit. */
export type ColumnOf<T extends Table> = T['_']['columns'][ColumnKey<T>];

/** The tables among the exports of a Drizzle schema module `S`, by export name. */
export type TableKey<S> = { [K in keyof S]: S[K] extends Table ? K : never }[keyof S] & string;

/** A to-one relationship whose foreign key is a column of this resource's table. */
export interface ToOneMapping<T extends Table> {
  /** The column of this table holding the related row's id (`articles.authorId`). */
  readonly foreignKey: ColumnOf<T>;
}

/** A to-many relationship whose foreign key is a column of the related table. */
export type ToManyMapping<S> = {
  [K in TableKey<S>]: {
    /** The related resource's table. */
    readonly table: S[K];
    /** Its column holding this row's id (`comments.articleId`). */
    readonly foreignKey: S[K] extends Table ? ColumnOf<S[K]> : never;
  };
}[TableKey<S>];

/** A to-many relationship through a join table. */
export type ThroughMapping<S> = {
  [K in TableKey<S>]: {
    readonly through: {
      /** The join table. */
      readonly table: S[K];
      /** Its column holding this row's id. */
      readonly from: S[K] extends Table ? ColumnOf<S[K]> : never;
      /** Its column holding the related row's id. */
      readonly to: S[K] extends Table ? ColumnOf<S[K]> : never;
    };
  };
}[TableKey<S>];

/**
 * How one relationship is stored: explicitly, or by the name of a relation the host declared
 * with Drizzle's `relations()` on this table (a relationship left out of `relationships` is the
 * relation of its own name). A `many()` relation to a join table whose `one()` relation leads
 * to the related resource's table is a to-many through that join table.
 */
export type RelationshipMapping<S, T extends Table> = ToOneMapping<T> | ToManyMapping<S> | ThroughMapping<S> | string;

/** The operations `serverColumns` is asked for. */
export type WriteOperation = 'create' | 'update';

/**
 * How one resource is stored in table `T` of schema `S`.
 *
 * @example
 * import * as schema from './drizzle/sqlite.js';
 * const articles: TableMapping<typeof schema, typeof schema.articles> = {
 *   table: schema.articles,
 *   version: 'version',
 *   scope: (ctx) => eq(schema.articles.status, 'published'),
 * };
 */
export interface TableMapping<S, T extends Table> {
  /** The table. */
  readonly table: T;
  /** The key of the primary key column. Default: `'id'`. */
  readonly id?: ColumnKey<T>;
  /** Attribute → column key, for attributes whose column has another property name. */
  readonly columns?: Readonly<Record<string, ColumnKey<T>>>;
  /** Relationship name → how it is stored (default: the `relations()` entry of its name). */
  readonly relationships?: Readonly<Record<string, RelationshipMapping<S, T>>>;
  /** A URL id as a key value, or undefined when it cannot be one (then 404). Default: integer keys. */
  readonly parseId?: (id: string) => unknown;
  /** Columns the server sets on every write (timestamps), by column key, merged over the client's values. */
  readonly serverColumns?: (operation: WriteOperation, context: Context) => Partial<T['$inferInsert']>;
  /** An integer column holding the row's version: writes add one, reads carry it in their `ETag`. */
  readonly version?: ColumnKey<T>;
  /** The policy the schema's `can(ability)` callbacks consult for this resource's models. */
  readonly policy?: (ability: Ability, model: Record<string, unknown>, context: Context) => MaybePromise<boolean>;
  /**
   * Row-level read authorization: the condition (on this table's columns; a subquery of the
   * query builder may stand in it) every read of the resource adds: Show, Index and its counts,
   * includes, related endpoints, relationship counts, and the paths and counts of filters
   * through relationships to it. A row outside it is, to the request, a row that does not exist.
   * Undefined: every row.
   */
  readonly scope?: (context: Context) => SQL | undefined;
  /**
   * The schema's custom filters, by name: the condition that holds for the rows the filter
   * keeps. One condition each, so it may also stand inside `filter[or]` and `filter[not]`.
   */
  readonly filters?: Readonly<Record<string, (value: FilterValue, context: Context) => SQL>>;
  /** The schema's custom sorts, by name: the `order by` terms (`asc(column)`, `desc(...)`, any `SQL`). */
  readonly sorts?: Readonly<Record<string, (direction: SortDirection, context: Context) => SQL | readonly SQL[]>>;
}

/** A mapping of any table of schema `S`. */
export type AnyTableMapping<S> = {
  [K in TableKey<S>]: S[K] extends Table ? TableMapping<S, S[K]> : never;
}[TableKey<S>];

export { parseIntegerId } from 'jsonapi-gen/internal';

/** A mapping as the store reads it, of any table. */
export type UntypedTableMapping = TableMapping<Record<string, unknown>, Table>;
