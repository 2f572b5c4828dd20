import type { SortDirection } from 'jsonapi-gen';
import { sql } from 'kysely';
import { extendPlan, planOf } from './plan.js';
import type { SelectQuery } from './select-query.js';


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
 * `column` equal to one of `values` (SQL `=` for one, `IN` for several, nothing for none),
 * qualified with the query's table; values are always bound parameters. What the store's
 * `where` runs for the schema's `Where` filters.
 *
 * @example
 * whereColumn(db.selectFrom('articles').selectAll(), 'author_id', ['1', '2']);
 */
export function whereColumn(query: SelectQuery, column: string, values: readonly string[]): SelectQuery {
  const plan = planOf(query);
  const qualifiedColumn = plan ? qualified(plan.table, column) : qualify(query, column);
  const step = (q: SelectQuery) =>
    values.length === 1 ? q.where(qualifiedColumn, '=', values[0]) : values.length === 0 ? q.where(sql<boolean>`1 = 0`) : q.where(qualifiedColumn, 'in', values);
  if (!plan) return step(query);
  // The SQL depends on the column and on how many values: `=` for one, `in (?, ...)` for a list.
  return extendPlan(plan, `where ${JSON.stringify(qualifiedColumn)} ${values.length === 1 ? '=' : values.length}`, values, step);
}

/**
 * The query ordered by `column` (qualified with the query's table): what the store's `orderBy`
 * runs for the schema's `SortBy` sorts.
 *
 * @example
 * orderByColumn(db.selectFrom('articles').selectAll(), 'created_at', 'desc');
 */
export function orderByColumn(query: SelectQuery, column: string, direction: SortDirection): SelectQuery {
  const plan = planOf(query);
  if (!plan) return query.orderBy(qualify(query, column), direction);
  const qualifiedColumn = qualified(plan.table, column);
  return extendPlan(plan, `order ${JSON.stringify(qualifiedColumn)} ${direction}`, [], (q) => q.orderBy(qualifiedColumn, direction));
}
