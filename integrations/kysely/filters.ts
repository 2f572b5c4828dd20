import type { SortDirection } from 'jsonapi-gen';
import { whereCondition } from './conditions.js';
import type { SelectQuery } from './select-query.js';

/**
 * `column` equal to one of `values` (SQL `=` for one, `IN` for several, nothing for none);
 * values are always bound parameters. For hand-written data layers on Kysely; the store's own
 * `where` does the same on its `ListQuery`. Qualify `column` (`table.column`) when the query
 * joins tables.
 *
 * @example
 * import { db } from './db.js';
 * whereColumn(db.selectFrom('articles').selectAll(), 'articles.author_id', ['1', '2']);
 */
export function whereColumn(query: SelectQuery, column: string, values: readonly string[]): SelectQuery {
  // Equality never reaches the text operators, the only ones whose SQL differs by dialect.
  return whereCondition(
    query,
    column,
    values.length === 1 ? { op: 'eq', value: values[0]! } : { op: 'in', value: values },
    'postgres',
  );
}

/**
 * The query ordered by `column`: what the store's `orderBy` does for the schema's `SortBy` sorts.
 *
 * @example
 * import { db } from './db.js';
 * orderByColumn(db.selectFrom('articles').selectAll(), 'articles.created_at', 'desc');
 */
export function orderByColumn(query: SelectQuery, column: string, direction: SortDirection): SelectQuery {
  return query.orderBy(column, direction);
}
