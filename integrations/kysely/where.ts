import type { Condition, Context } from 'jsonapi-gen';
import type { Kysely } from 'kysely';
import type { AnyDatabase } from './any-database.js';
import { conditionShape, conditionValues, whereCondition } from './conditions.js';
import type { ListQuery } from './list-query.js';
import type { SelectQuery } from './select-query.js';
import type { StoreTables } from './store-tables.js';
import type { TableResource } from './table-resource.js';
import { isSqlite } from './transaction.js';

/**
 * The store's `where`: `query` narrowed by one condition. On the resource's own column (an
 * attribute, a to-one relationship's foreign key), a comparison; on a path
 * (`author.name`, `tags.name`), the resource's rows that have a related row matching, as
 * `key in (select ...)` over the related table (through the join table of a many-to-many
 * relationship), within the related resource's scope, so a row the request cannot see is
 * never matched.
 *
 * @example
 * import type { StoreTables } from './store-tables.js';
 * import type { TableResource } from './table-resource.js';
 * declare const t: StoreTables, articles: TableResource, query: ListQuery, ctx: Context;
 * whereQuery(t, articles, query, { field: 'author.name', op: 'eq', value: 'Ada', path: { relationship: 'author', type: 'people', attribute: 'name', many: false } }, ctx);
 */
export function whereQuery(
  t: StoreTables,
  resource: TableResource,
  query: ListQuery,
  condition: Condition,
  context: Context,
): ListQuery {
  const sqlite = isSqlite(t.db);
  const path = condition.path;
  if (!path) return query.condition(resource.filterColumn(condition.field), condition, sqlite);
  const mapping = resource.relationships[path.relationship];
  const related = t.tables.get(path.type);
  if (!mapping || !related)
    throw new TypeError(
      `defineStore: ${resource.type}.${path.relationship} is not mapped, or ${path.type} is not in the store`,
    );
  const column = `${related.table}.${related.column(path.attribute)}`;
  /** The related rows in scope that match, selecting `key`. */
  const matching = (on: Kysely<AnyDatabase>, key: string): SelectQuery => {
    const start = related.scope ? related.select(on, context).clearSelect() : on.selectFrom(related.table);
    return whereCondition(start.select(key), column, condition, sqlite);
  };
  const shape = related.scope ? undefined : `${resource.type}.${condition.field} ${conditionShape(condition)}`;
  const values = conditionValues(condition, sqlite);
  if (mapping.type === 'toOne')
    return query.whereIn(mapping.foreignKey, shape, values, (on) => matching(on, related.qualifiedId));
  if ('through' in mapping && mapping.through) {
    const { table: join, from, to } = mapping.through;
    return query.whereIn(resource.idColumn, shape, values, (on) =>
      matching(on, `${join}.${from}`).innerJoin(join, `${join}.${to}`, related.qualifiedId),
    );
  }
  const { foreignKey } = mapping as { foreignKey: string };
  return query.whereIn(resource.idColumn, shape, values, (on) => matching(on, `${related.table}.${foreignKey}`));
}
