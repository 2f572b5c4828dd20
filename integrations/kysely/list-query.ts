import type { Condition, SortDirection } from 'jsonapi-gen';
import { conditionShape, conditionValues, whereCondition } from './conditions.js';
import type { Expression, Kysely, SqlBool } from 'kysely';
import type { AnyDatabase, AnyExpressionBuilder } from './any-database.js';
import type { SqlDialect } from './dialect.js';
import type { SelectQuery } from './select-query.js';

/**
 * A sort key of `ListQuery.keyset`: a column of the table (or qualified), or an expression each
 * row has a value of (a count), with the shape of its SQL (undefined when it may vary).
 */
export type KeysetKey =
  | { readonly column: string; readonly direction: SortDirection }
  | {
      readonly expression: (on: Kysely<AnyDatabase>) => Expression<unknown>;
      readonly shape: string | undefined;
      readonly direction: SortDirection;
    };

/** A column reference that does not depend on the database it is built on. */
function constantRef(column: string): (on: Kysely<AnyDatabase>) => string {
  return () => column;
}

/**
 * The query value of a Kysely-backed resource's Index (and related collections): a collection
 * read described rather than built. The runtime narrows it step by step (`where`, `orderBy`,
 * `page`); the store runs it. While every step is one of these, its SQL depends only on its
 * `shape` (the table, each filter's column and arity, each sort, whether paged), so the store
 * compiles it once per shape and binds each request's `values`; Kysely would otherwise build
 * and compile every Index query anew, which costs more than the runtime's own work on a page
 * of 20. A step only a builder can say (a mapping's scope, custom filter or sort) goes through
 * `apply` with a real Kysely `SelectQueryBuilder`; from then on the query is built anew.
 *
 * @example
 * import { db } from './db.js';
 * const query = ListQuery.from('articles', db, (on) => on.selectFrom('articles').selectAll('articles'), 'articles list')
 *   .condition('author_id', { op: 'in', value: ['1', '2'] }, 'sqlite')
 *   .orderBy('created_at', 'desc');
 * await query.build().execute();
 */
export class ListQuery {
  /** The table whose columns filters and sorts name (qualified with it). */
  readonly table: string;
  /** What the query runs on: the request's transaction, or the database. */
  readonly executor: Kysely<AnyDatabase>;
  /** Everything the SQL text depends on; undefined once a step the description cannot name was added. */
  readonly shape: string | undefined;
  /** The values the SQL binds, in the order its steps add them. */
  readonly values: readonly unknown[];
  readonly #build: (on: Kysely<AnyDatabase>) => SelectQuery;

  private constructor(
    table: string,
    executor: Kysely<AnyDatabase>,
    shape: string | undefined,
    values: readonly unknown[],
    build: (on: Kysely<AnyDatabase>) => SelectQuery,
  ) {
    this.table = table;
    this.executor = executor;
    this.shape = shape;
    this.values = values;
    this.#build = build;
  }

  /** A query of `table` that `start` begins on a database; `shape` undefined when its SQL may vary (a scope). */
  static from(
    table: string,
    executor: Kysely<AnyDatabase>,
    start: (on: Kysely<AnyDatabase>) => SelectQuery,
    shape: string | undefined,
    values: readonly unknown[] = [],
  ): ListQuery {
    return new ListQuery(table, executor, shape, values, start);
  }

  /** Rows matching one condition on `column` (see `conditionSql`; `dialect` picks its case-sensitive text match). */
  condition(
    column: string,
    condition: Pick<Condition, 'op' | 'value' | 'caseInsensitive'>,
    dialect: SqlDialect,
  ): ListQuery {
    const qualified = this.#qualify(column);
    return this.#then(
      `cond ${JSON.stringify(qualified)} ${conditionShape(condition)}`,
      conditionValues(condition, dialect === 'sqlite'),
      (q) => whereCondition(q, qualified, condition, dialect),
    );
  }

  /**
   * Rows whose `column` is among the keys `members` selects on a database (a relationship path:
   * the related rows that match). `shape` names everything the subquery's SQL depends on, or is
   * undefined when it may vary (a scope); `values` are what it binds, in order.
   */
  whereIn(
    column: string,
    shape: string | undefined,
    values: readonly unknown[],
    members: (on: Kysely<AnyDatabase>) => SelectQuery,
  ): ListQuery {
    const qualified = this.#qualify(column);
    const step = (q: SelectQuery, on: Kysely<AnyDatabase>) => q.where(qualified, 'in', members(on));
    const build = this.#build;
    const next = (on: Kysely<AnyDatabase>) => step(build(on), on);
    return new ListQuery(
      this.table,
      this.executor,
      this.shape === undefined || shape === undefined
        ? undefined
        : `${this.shape} in ${JSON.stringify(qualified)} (${shape})`,
      [...this.values, ...values],
      next,
    );
  }

  /**
   * Rows for which `expression` holds (a count, a boolean group: see `compileCondition`).
   * `shape` names everything its SQL text depends on, or is undefined when it may vary;
   * `values` are what it binds, in order.
   */
  whereExpression(
    shape: string | undefined,
    values: readonly unknown[],
    expression: (eb: AnyExpressionBuilder, on: Kysely<AnyDatabase>) => Expression<SqlBool>,
  ): ListQuery {
    return this.#step(shape === undefined ? undefined : `where ${shape}`, values, (q, on) =>
      q.where((eb) => expression(eb, on)),
    );
  }

  /**
   * Ordered by the value `expression` gives each row (a count of related rows); `shape` as for
   * `whereExpression`.
   */
  orderByExpression(
    shape: string | undefined,
    expression: (on: Kysely<AnyDatabase>) => Expression<unknown>,
    direction: SortDirection,
  ): ListQuery {
    return this.#step(shape === undefined ? undefined : `order (${shape}) ${direction}`, [], (q, on) =>
      q.orderBy(expression(on), direction),
    );
  }

  /**
   * Ordered by `column` of a to-one related table: a left join on `foreignKey` (under an alias of
   * its own, so the related table may be the resource's too), rows without a related row last
   * or first as the database sorts nulls.
   */
  orderByRelated(
    related: { table: string; key: string; foreignKey: string; alias: string },
    column: string,
    direction: SortDirection,
  ): ListQuery {
    const { table, key, alias } = related;
    const foreignKey = this.#qualify(related.foreignKey);
    return this.#then(
      `order-related ${JSON.stringify([table, key, foreignKey, alias, column])} ${direction}`,
      [],
      (q) => q.leftJoin(`${table} as ${alias}`, `${alias}.${key}`, foreignKey).orderBy(`${alias}.${column}`, direction),
    );
  }

  /** Ordered by `column`. */
  orderBy(column: string, direction: SortDirection): ListQuery {
    const qualified = this.#qualify(column);
    return this.#then(`order ${JSON.stringify(qualified)} ${direction}`, [], (q) => q.orderBy(qualified, direction));
  }

  /** One page by offset; the table's `key` as a last sort keeps pages stable when the sort has ties. */
  page(key: string, limit: number, offset: number): ListQuery {
    return this.#then(`page ${JSON.stringify(key)}`, [limit, offset], (q) =>
      q.orderBy(key).limit(limit).offset(offset),
    );
  }

  /**
   * One page by keyset: ordered by `order` (the key last, so the order is total), the rows after
   * the row whose values of those sort keys are `after` (none: from the first), at most `limit`.
   * A sort key is a column, or an expression (a count) with the shape of its SQL. "After"
   * follows each key's direction: `(a > x) or (a = x and b > y) or ...` (`<` for a descending
   * key), which an index on the sort columns serves without scanning the skipped rows.
   */
  keyset(order: ReadonlyArray<KeysetKey>, after: readonly unknown[] | undefined, limit: number): ListQuery {
    const keys = order.map((o) =>
      'column' in o
        ? {
            shape: JSON.stringify(this.#qualify(o.column)),
            ref: constantRef(this.#qualify(o.column)),
            direction: o.direction,
          }
        : { shape: o.shape === undefined ? undefined : `(${o.shape})`, ref: o.expression, direction: o.direction },
    );
    // A bound on the first key alone leads: it is what lets the database seek in an index on
    // that column instead of scanning it from the start (bench/results.md has the measurement).
    const values: unknown[] = [];
    if (after) {
      values.push(after[0]);
      for (let i = 0; i < keys.length; i++) values.push(...after.slice(0, i + 1));
    }
    values.push(limit);
    const shape = keys.some((k) => k.shape === undefined)
      ? undefined
      : `keyset ${JSON.stringify(keys.map((k) => `${k.shape!} ${k.direction}`))} ${after ? 'after' : 'first'}`;
    return this.#step(shape, values, (q, on) => {
      let query = q;
      const refs = keys.map((k) => ({ ref: k.ref(on), direction: k.direction }));
      if (after) {
        const [first] = refs;
        query = query.where((eb) => eb(first!.ref, first!.direction === 'asc' ? '>=' : '<=', after[0]));
        query = query.where((eb) =>
          eb.or(
            refs.map((c, i) =>
              eb.and([
                ...refs.slice(0, i).map((p, j) => eb(p.ref, '=', after[j])),
                eb(c.ref, c.direction === 'asc' ? '>' : '<', after[i]),
              ]),
            ),
          ),
        );
      }
      for (const c of refs) query = query.orderBy(c.ref, c.direction);
      return query.limit(limit);
    });
  }

  /**
   * A step on the Kysely builder itself (a mapping's custom filter or sort): the query is
   * built anew on each run from here on.
   */
  apply(step: (query: SelectQuery) => SelectQuery): ListQuery {
    const build = this.#build;
    return new ListQuery(this.table, this.executor, undefined, this.values, (on) => step(build(on)));
  }

  /** The Kysely select query, on `on` (default: the executor it was started on). */
  build(on: Kysely<AnyDatabase> = this.executor): SelectQuery {
    return this.#build(on);
  }

  #then(shape: string, values: readonly unknown[], step: (query: SelectQuery) => SelectQuery): ListQuery {
    return this.#step(shape, values, step);
  }

  /** The query with one more step; its shape undefined when `shape` is (the step's SQL may vary). */
  #step(
    shape: string | undefined,
    values: readonly unknown[],
    step: (query: SelectQuery, on: Kysely<AnyDatabase>) => SelectQuery,
  ): ListQuery {
    const build = this.#build;
    return new ListQuery(
      this.table,
      this.executor,
      this.shape === undefined || shape === undefined ? undefined : `${this.shape} ${shape}`,
      values.length === 0 ? this.values : [...this.values, ...values],
      (on) => step(build(on), on),
    );
  }

  #qualify(column: string): string {
    return column.includes('.') ? column : `${this.table}.${column}`;
  }
}
