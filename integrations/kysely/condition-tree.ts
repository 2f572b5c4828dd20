import type { Condition, Context, CountPath, FilterCondition, FilterValue } from 'jsonapi-gen';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { AnyDatabase, AnyExpressionBuilder } from './any-database.js';
import type { SqlDialect } from './dialect.js';
import { conditionShape, conditionSql, conditionValues, whereCondition } from './conditions.js';
import type { SelectQuery } from './select-query.js';
import type { StoreTables } from './store-tables.js';
import type { TableResource } from './table-resource.js';

/**
 * A condition's SQL, described so that a `ListQuery` can compile it once per shape: `shape`
 * names everything its text depends on (undefined when it may vary: a scope, a custom filter),
 * `values` are what it binds, in the order the text takes them.
 */
export interface CompiledCondition {
  readonly shape: string | undefined;
  readonly values: readonly unknown[];
  readonly expression: (eb: AnyExpressionBuilder, on: Kysely<AnyDatabase>) => Expression<SqlBool>;
}

/** A mapping's composable custom filter: an expression that can stand inside `or` and `not`. */
export type ComposableWhere = (eb: AnyExpressionBuilder, value: FilterValue, context: Context) => Expression<SqlBool>;

/**
 * The related rows a path condition (`author.name`, `tags.name`) goes through: `column` of the
 * resource's table is among the keys `members` selects (the related rows in scope that match).
 * With `twoValued`, the keys are never null and neither is `column` where it holds (a nullable
 * foreign key is tested first), so that `not` of the test is "no related row matches".
 */
export interface PathMembers {
  readonly column: string;
  readonly nullable: boolean;
  readonly shape: string | undefined;
  readonly values: readonly unknown[];
  readonly members: (on: Kysely<AnyDatabase>) => SelectQuery;
}

/** The related resource and mapping of `relationship`, or a clear error naming what is missing. */
function relation(t: StoreTables, resource: TableResource, relationship: string, type: string) {
  const mapping = resource.relationships[relationship];
  const related = t.tables.get(type);
  if (!mapping || !related)
    throw new TypeError(`defineStore: ${resource.type}.${relationship} is not mapped, or ${type} is not in the store`);
  return { mapping, related };
}

/** The rows of `related` the request may see, selecting nothing yet. */
function visible(related: TableResource, on: Kysely<AnyDatabase>, context: Context): SelectQuery {
  return related.scope ? related.select(on, context).clearSelect() : on.selectFrom(related.table);
}

/** See `PathMembers`. */
export function pathMembers(
  t: StoreTables,
  resource: TableResource,
  condition: Condition,
  context: Context,
  dialect: SqlDialect,
  twoValued: boolean,
): PathMembers {
  const path = condition.path!;
  const { mapping, related } = relation(t, resource, path.relationship, path.type);
  const column = `${related.table}.${related.column(path.attribute)}`;
  const matching = (on: Kysely<AnyDatabase>, key: string): SelectQuery => {
    const keys = whereCondition(visible(related, on, context).select(key), column, condition, dialect);
    return twoValued ? keys.where(key, 'is not', null) : keys;
  };
  const shape = related.scope ? undefined : `${resource.type}.${condition.field} ${conditionShape(condition)}`;
  const values = conditionValues(condition, dialect === 'sqlite');
  if (mapping.type === 'toOne')
    return {
      column: mapping.foreignKey,
      nullable: true,
      shape,
      values,
      members: (on) => matching(on, related.qualifiedId),
    };
  if ('through' in mapping && mapping.through) {
    const { table: join, from, to } = mapping.through;
    return {
      column: resource.idColumn,
      nullable: false,
      shape,
      values,
      members: (on) => matching(on, `${join}.${from}`).innerJoin(join, `${join}.${to}`, related.qualifiedId),
    };
  }
  const { foreignKey } = mapping as { foreignKey: string };
  return {
    column: resource.idColumn,
    nullable: false,
    shape,
    values,
    members: (on) => matching(on, `${related.table}.${foreignKey}`),
  };
}

/**
 * The number of `count`'s related rows the request may see, for the outer query's current row:
 * `(select count(*) from related [join join_table] where fk = resource.id [and scope])`. The
 * subquery refers to the outer row by the resource's qualified id, so the related table must
 * be another table than the resource's own.
 */
export function countSubquery(
  t: StoreTables,
  resource: TableResource,
  count: CountPath,
  context: Context,
): { shape: string | undefined; build: (on: Kysely<AnyDatabase>) => SelectQuery } {
  const { mapping, related } = relation(t, resource, count.relationship, count.type);
  if (mapping.type === 'toOne')
    throw new TypeError(`defineStore: ${resource.type}.${count.relationship} is counted but mapped as toOne`);
  if (related.table === resource.table)
    throw new TypeError(
      `defineStore: ${resource.type}.${count.relationship} is counted, but relates rows of its own table ${resource.table}, which a correlated count cannot tell apart`,
    );
  const shape = related.scope ? undefined : `count ${resource.type}.${count.relationship}`;
  const owner = resource.qualifiedId;
  const counted = (start: SelectQuery) => start.select((eb) => eb.fn.countAll().as('n'));
  if ('through' in mapping && mapping.through) {
    const { table: join, from, to } = mapping.through;
    return {
      shape,
      build: (on) =>
        counted(
          visible(related, on, context)
            .innerJoin(join, `${join}.${to}`, related.qualifiedId)
            .whereRef(`${join}.${from}`, '=', owner),
        ),
    };
  }
  const { foreignKey } = mapping as { foreignKey: string };
  return {
    shape,
    build: (on) => counted(visible(related, on, context).whereRef(`${related.table}.${foreignKey}`, '=', owner)),
  };
}

/** The SQL comparison of each count operator. */
const COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * Compiles one `FilterCondition` (a leaf, a count, a custom filter, or an `and`/`or`/`not` tree
 * of them) into one SQL expression. Two-valued, as the contract says: a comparison on a null
 * value is false, so `not` of it is true (`not coalesce(x, false)`); a path is `key in
 * (non-null keys of matching related rows in scope)`, with a nullable foreign key tested for
 * null first, so `not` over it keeps rows without any related row. `composable` gives the
 * mapping's composable custom filters by name.
 *
 * @example
 * import type { StoreTables } from './store-tables.js';
 * import type { TableResource } from './table-resource.js';
 * declare const t: StoreTables, articles: TableResource, ctx: Context;
 * const compiled = compileCondition(t, articles, { op: 'not', conditions: [{ field: 'status', op: 'eq', value: 'draft' }] }, ctx, 'sqlite', new Map());
 * compiled.shape; // 'not(c "articles.status" eq)'
 */
export function compileCondition(
  t: StoreTables,
  resource: TableResource,
  condition: FilterCondition,
  context: Context,
  dialect: SqlDialect,
  composable: ReadonlyMap<string, ComposableWhere>,
): CompiledCondition {
  if (condition.op === 'and' || condition.op === 'or' || condition.op === 'not') {
    const parts = condition.conditions.map((c) => compileCondition(t, resource, c, context, dialect, composable));
    const shapes = parts.map((p) => p.shape);
    const shape = shapes.some((s) => s === undefined) ? undefined : `${condition.op}(${shapes.join(', ')})`;
    const all = (eb: AnyExpressionBuilder, on: Kysely<AnyDatabase>) => parts.map((p) => p.expression(eb, on));
    const op = condition.op;
    return {
      shape,
      values: parts.flatMap((p) => p.values),
      expression: (eb, on) =>
        op === 'or'
          ? eb.or(all(eb, on))
          : op === 'and'
            ? eb.and(all(eb, on))
            : sql<SqlBool>`not coalesce(${eb.and(all(eb, on))}, false)`,
    };
  }
  if (condition.op === 'custom') {
    const where = composable.get(condition.field);
    if (!where)
      throw new TypeError(
        `defineStore: the custom filter ${resource.type}.${condition.field} is a plain function; give it as { where } to use it inside filter[or] or filter[not]`,
      );
    const value = condition.value as FilterValue;
    return { shape: undefined, values: [], expression: (eb) => where(eb, value, context) };
  }
  const leaf = condition as Condition;
  if (leaf.count) {
    const { shape, build } = countSubquery(t, resource, leaf.count, context);
    const value = leaf.value as number;
    const op = COMPARISON[leaf.op as keyof typeof COMPARISON];
    if (!op) throw new TypeError(`defineStore: a count does not take the operator ${leaf.op}`);
    return {
      shape: shape === undefined ? undefined : `${shape} ${leaf.op}`,
      values: [value],
      expression: (eb, on) => eb(build(on), op, value),
    };
  }
  if (leaf.path) {
    const members = pathMembers(t, resource, leaf, context, dialect, true);
    const column = `${resource.table}.${members.column}`;
    return {
      shape: members.shape === undefined ? undefined : `in ${JSON.stringify(column)} (${members.shape})`,
      values: members.values,
      expression: (eb, on) => {
        const test = eb(column, 'in', members.members(on));
        return members.nullable ? eb.and([eb(column, 'is not', null), test]) : test;
      },
    };
  }
  const column = `${resource.table}.${resource.filterColumn(leaf.field)}`;
  return {
    shape: `c ${JSON.stringify(column)} ${conditionShape(leaf)}`,
    values: conditionValues(leaf, dialect === 'sqlite'),
    expression: (eb) => conditionSql(eb, column, leaf, dialect),
  };
}
