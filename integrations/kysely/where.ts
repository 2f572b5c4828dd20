import type { Condition, Context, FilterCondition } from 'jsonapi-gen';
import { invalidFilterValue } from 'jsonapi-gen/internal';
import { type ComposableWhere, compileCondition, pathMembers } from './condition-tree.js';
import type { ListQuery } from './list-query.js';
import type { StoreTables } from './store-tables.js';
import type { TableResource } from './table-resource.js';
import { dialectOf } from './dialect.js';

/**
 * The store's `where`: `query` narrowed by one `FilterCondition`. A plain condition on the
 * resource's own column (an attribute, a to-one relationship's foreign key) is a comparison; on
 * a path (`author.name`, `tags.name`), the resource's rows that have a related row matching, as
 * `key in (select ...)` over the related table (through the join table of a many-to-many
 * relationship), within the related resource's scope, so a row the request cannot see is
 * never matched. A count, a custom filter or a boolean group is one expression
 * (`compileCondition`), compiled once per shape of the tree.
 *
 * @example
 * import type { StoreTables } from './store-tables.js';
 * import type { TableResource } from './table-resource.js';
 * declare const t: StoreTables, articles: TableResource, query: ListQuery, ctx: Context;
 * whereQuery(t, articles, query, { field: 'author.name', op: 'eq', value: 'Ada', path: { relationship: 'author', type: 'people', attribute: 'name', many: false } }, ctx, new Map());
 */
export function whereQuery(
  t: StoreTables,
  resource: TableResource,
  query: ListQuery,
  condition: FilterCondition,
  context: Context,
  composable: ReadonlyMap<string, ComposableWhere>,
): ListQuery {
  const dialect = dialectOf(t.db);
  if (condition.op === 'and' || condition.op === 'or' || condition.op === 'not' || condition.op === 'custom') {
    const compiled = compileCondition(t, resource, condition, context, dialect, composable);
    return query.whereExpression(compiled.shape, compiled.values, compiled.expression);
  }
  const leaf = condition as Condition;
  if (dialect === 'mysql' && !leaf.path && !leaf.count) checkRelatedIds(t, resource, leaf);
  if (leaf.count) {
    const compiled = compileCondition(t, resource, leaf, context, dialect, composable);
    return query.whereExpression(compiled.shape, compiled.values, compiled.expression);
  }
  if (!leaf.path) return query.condition(resource.filterColumn(leaf.field), leaf, dialect);
  const { column, shape, values, members } = pathMembers(t, resource, leaf, context, dialect, false);
  return query.whereIn(column, shape, values, members);
}

/**
 * On MySQL, 400 for a to-one relationship filter (`filter[author]=...`) whose id the related
 * resource's `parseId` refuses, as PostgreSQL answers a value its key column cannot hold: MySQL
 * would compare `'1 OR 1=1'` with an integer key as 1. The ids are parsed as the related
 * resource parses them: the one of the mapping's `table`, or, without it, as every resource of
 * the store does when they all parse ids alike (the default: integer keys); otherwise they go
 * to the database as they are.
 */
function checkRelatedIds(t: StoreTables, resource: TableResource, condition: Condition): void {
  const mapping = resource.relationships[condition.field];
  if (mapping?.type !== 'toOne' || condition.op === 'null') return;
  const resources = [...t.tables.values()];
  const parseId =
    mapping.table === undefined
      ? resources.every((r) => r.parseId === resource.parseId)
        ? resource.parseId
        : undefined
      : resources.find((r) => r.table === mapping.table)?.parseId;
  if (!parseId) return;
  const ids = Array.isArray(condition.value) ? (condition.value as readonly unknown[]) : [condition.value];
  if (ids.some((id) => parseId(String(id)) === undefined)) throw invalidFilterValue();
}
