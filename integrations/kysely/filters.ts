import type { SelectQueryBuilder } from 'kysely';
import { Filter, Sort, type Context, type FilterValue, type SortDirection } from 'jsonapi-gen';
import { sql } from 'kysely';
import { extendPlan, planOf } from './plan.js';

/**
 * The query object of every Kysely-backed resource: a select query on the resource's table.
 * Type the query of a `CustomFilter` or `CustomSort` with it.
 *
 * @example
 * CustomFilter.make<SelectQuery>('search', (query, value) =>
 *   query.where('articles.title', 'like', `%${[value].flat()[0]}%`));
 */
export type SelectQuery = SelectQueryBuilder<any, any, any>;

/**
 * The table (or alias) a select query reads first: what qualifies the columns of filters and
 * sorts so that joins (a join-table relationship, a custom filter's join) leave them unambiguous.
 */
export function tableOf(query: SelectQuery): string | undefined {
  const node = query.toOperationNode();
  const from = node.from?.froms[0] as
    | { kind: 'TableNode'; table: { identifier: { name: string } } }
    | { kind: 'AliasNode'; alias: { name?: string } }
    | undefined;
  if (from?.kind === 'TableNode') return from.table.identifier.name;
  if (from?.kind === 'AliasNode' && typeof from.alias.name === 'string') return from.alias.name;
  return undefined;
}

/** `column` qualified by the query's table unless it already names one (`table.column`). */
function qualify(query: SelectQuery, column: string): string {
  return column.includes('.') ? column : qualified(tableOf(query), column);
}

function qualified(table: string | undefined, column: string): string {
  return table === undefined || column.includes('.') ? column : `${table}.${column}`;
}

/**
 * An equality filter: `filter[name]=a` keeps rows whose column equals `a`,
 * `filter[name][]=a&filter[name][]=b` rows whose column is any of them (SQL `IN`). Values are
 * always bound parameters. The column defaults to the filter's name and is qualified with the
 * resource's table.
 *
 * @example
 * filters: [Where.make('title'), Where.make('author').column('author_id')]
 */
export class Where extends Filter<SelectQuery> {
  #column: string;

  constructor(name: string) {
    super(name);
    this.#column = name;
  }

  /** A filter named `name` on the column of the same name (see `.column()`). */
  static make(name: string): Where {
    return new Where(name);
  }

  /** Compare this column instead (`'author_id'`, or qualified: `'articles.author_id'`). */
  column(column: string): this {
    this.#column = column;
    return this;
  }

  /** The column compared. */
  get columnName(): string {
    return this.#column;
  }

  apply(query: SelectQuery, value: FilterValue, _context: Context): SelectQuery {
    const plan = planOf(query);
    const column = plan ? qualified(plan.table, this.#column) : qualify(query, this.#column);
    const step = (q: SelectQuery) => (typeof value === 'string' ? q.where(column, '=', value) : value.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where(column, 'in', value));
    if (!plan) return step(query);
    // The SQL depends on the column and on how many values: `=` for one, `in (?, ...)` for a list.
    return extendPlan(plan, `where ${JSON.stringify(column)} ${typeof value === 'string' ? '=' : value.length}`, typeof value === 'string' ? [value] : value, step);
  }
}

/**
 * A sort on one column: `sort=name` ascending, `sort=-name` descending. The column defaults to
 * the sort's name and is qualified with the resource's table.
 *
 * @example
 * sorts: [SortColumn.make('title'), SortColumn.make('createdAt').column('created_at')]
 */
export class SortColumn extends Sort<SelectQuery> {
  #column: string;

  constructor(name: string) {
    super(name);
    this.#column = name;
  }

  /** A sort named `name` on the column of the same name (see `.column()`). */
  static make(name: string): SortColumn {
    return new SortColumn(name);
  }

  /** Order by this column instead (`'created_at'`, or qualified: `'articles.created_at'`). */
  column(column: string): this {
    this.#column = column;
    return this;
  }

  /** The column ordered by. */
  get columnName(): string {
    return this.#column;
  }

  apply(query: SelectQuery, direction: SortDirection, _context: Context): SelectQuery {
    const plan = planOf(query);
    if (!plan) return query.orderBy(qualify(query, this.#column), direction);
    const column = qualified(plan.table, this.#column);
    return extendPlan(plan, `order ${JSON.stringify(column)} ${direction}`, [], (q) => q.orderBy(column, direction));
  }
}
