/**
 * A filter condition as Drizzle `SQL`, with the shape its text depends on and the values it
 * binds (the rules the Kysely store has, from `jsonapi-gen/internal`): a comparison on a column,
 * a path through a relationship as `key in (keys of the matching related rows in scope)`, a
 * count as a correlated `(select count(*) ...)`, a custom filter, and `and`/`or`/`not` groups,
 * two-valued (a comparison on null is false, so its `not` is true).
 */
import type { Condition, ConditionPath, Context, CountPath, FilterCondition, FilterValue } from 'jsonapi-gen';
import { type ConditionParts, SQL_COMPARISON, conditionShape, conditionValues } from 'jsonapi-gen/internal';
import { type Column, type SQL, sql } from 'drizzle-orm';
import type { Relation, Resources, TableResource } from './resource.js';
import { isMysqlDateTime, mysqlDateTime } from './mysql.js';
import { type Slot, list } from './statements.js';

/** A piece of a statement: the shape of its SQL (undefined when it may vary), its values, its SQL given their slots. */
export interface Piece {
  readonly shape: string | undefined;
  readonly values: readonly unknown[];
  readonly sql: (slot: Slot) => SQL;
}

/** What compiling a condition needs: the store's resources, the request, the dialect. */
export interface Scope {
  readonly resources: Resources;
  readonly context: Context;
  readonly sqlite: boolean;
  /** MySQL or MariaDB: text operators need a binary collation and date-times UTC text. */
  readonly mysql: boolean;
}

/** The LIKE escape character, a backslash, as a literal: MySQL's string literals double it. */
const ESCAPE = sql.raw(`'\\'`);
const MYSQL_ESCAPE = sql.raw(`'\\\\'`);

/**
 * The values a comparison on `column` binds (`conditionValues`); on MySQL a date-time column's
 * as the UTC `DATETIME` text it holds, so that instants compare as instants.
 */
export function valuesFor(
  column: Column | SQL,
  condition: ConditionParts,
  s: Pick<Scope, 'sqlite' | 'mysql'>,
): unknown[] {
  const values = conditionValues(condition, s.sqlite);
  if (!s.mysql || !('columnType' in column) || !isMysqlDateTime(column)) return values;
  return values.map(mysqlDateTime);
}

/** `column op value` with its values in `slot` from 0 (see `conditionValues` for what they are). */
export function comparison(
  column: Column | SQL,
  condition: ConditionParts,
  sqlite: boolean,
  slot: Slot,
  mysql = false,
): SQL {
  const { op, value } = condition;
  switch (op) {
    case 'null':
      return value === true ? sql`${column} is null` : sql`${column} is not null`;
    case 'in':
    case 'nin': {
      const count = (value as readonly unknown[]).length;
      if (count === 0) return op === 'in' ? sql`1 = 0` : sql`1 = 1`;
      return sql`${column} ${sql.raw(op === 'in' ? 'in' : 'not in')} (${list(slot, 0, count)})`;
    }
    case 'contains':
    case 'startsWith':
    case 'endsWith':
      if (condition.caseInsensitive)
        return sql`lower(${column}) like ${slot(0)} escape ${mysql ? MYSQL_ESCAPE : ESCAPE}`;
      if (sqlite) return sql`${column} glob ${slot(0)}`;
      // MySQL's default collations ignore case: the pattern's binary collation makes the match exact.
      if (mysql) return sql`${column} like ${slot(0)} collate utf8mb4_bin escape ${MYSQL_ESCAPE}`;
      return sql`${column} like ${slot(0)} escape ${ESCAPE}`;
    default:
      return sql`${column} ${sql.raw(SQL_COMPARISON[op])} ${slot(0)}`;
  }
}

/** The rows of `related` the request may see, `and` `condition`. */
function inScope(related: TableResource, context: Context, condition: SQL | undefined): SQL | undefined {
  const scope = related.scope(context);
  if (!scope) return condition;
  return condition ? sql`(${condition}) and (${scope})` : scope;
}

/** `where` of a subquery, or nothing. */
const whereOf = (condition: SQL | undefined): SQL => (condition ? sql` where ${condition}` : sql``);

/** The relation of a path or count, with the related resource's table. */
function relationOf(s: Scope, resource: TableResource, path: ConditionPath | CountPath): Relation {
  return resource.relation({ name: path.relationship, relatedType: path.type }, s.resources);
}

/**
 * A path condition (`author.name`, `tags.name`): `column` of the resource among the keys of the
 * related rows in scope that match. `twoValued`: the keys are never null, and a nullable foreign
 * key is tested first, so that `not` of it is "no related row matches".
 */
export function pathPiece(s: Scope, resource: TableResource, condition: Condition, twoValued: boolean): Piece {
  const path = condition.path!;
  const relation = relationOf(s, resource, path);
  const related = relation.related;
  const target = related.column(path.attribute);
  const shape = related.scoped
    ? undefined
    : `path ${resource.type}.${condition.field} ${twoValued ? '2v ' : ''}${conditionShape(condition)}`;
  const members = (slot: Slot, key: Column, join: SQL) => {
    const match = comparison(target, condition, s.sqlite, slot, s.mysql);
    const where = inScope(related, s.context, twoValued ? sql`${match} and ${key} is not null` : match);
    return sql`(select ${key} from ${related.table}${join}${whereOf(where)})`;
  };
  const values = valuesFor(target, condition, s);
  if (relation.kind === 'toOne') {
    const fk = relation.foreignKey;
    return {
      shape,
      values,
      sql: (slot) => {
        const test = sql`${fk} in ${members(slot, related.id, sql``)}`;
        return twoValued ? sql`(${fk} is not null and ${test})` : test;
      },
    };
  }
  if (relation.kind === 'through') {
    const { join, from, to } = relation;
    return {
      shape,
      values,
      sql: (slot) => sql`${resource.id} in ${members(slot, from, sql` inner join ${join} on ${to} = ${related.id}`)}`,
    };
  }
  const fk = relation.foreignKey;
  return { shape, values, sql: (slot) => sql`${resource.id} in ${members(slot, fk, sql``)}` };
}

/**
 * The number of `count`'s related rows the request may see, for the outer query's current row:
 * `(select count(*) from related [join] where fk = resource.id [and scope])`. The related table
 * must be another than the resource's own (the subquery names the outer row by its table).
 */
export function countSql(s: Scope, resource: TableResource, count: CountPath): { shape: string | undefined; sql: SQL } {
  const relation = relationOf(s, resource, count);
  if (relation.kind === 'toOne')
    throw new TypeError(`defineStore: ${resource.type}.${count.relationship} is counted but is a to-one relationship`);
  const related = relation.related;
  if (related.table === resource.table)
    throw new TypeError(
      `defineStore: ${resource.type}.${count.relationship} is counted, but relates rows of its own table ${resource.tableName}, which a correlated count cannot tell apart`,
    );
  const shape = related.scoped ? undefined : `count ${resource.type}.${count.relationship}`;
  if (relation.kind === 'through') {
    const { join, from, to } = relation;
    const where = inScope(related, s.context, sql`${from} = ${resource.id}`);
    return {
      shape,
      sql: sql`(select count(*) from ${related.table} inner join ${join} on ${to} = ${related.id}${whereOf(where)})`,
    };
  }
  const where = inScope(related, s.context, sql`${relation.foreignKey} = ${resource.id}`);
  return { shape, sql: sql`(select count(*) from ${related.table}${whereOf(where)})` };
}

/** Pieces joined by `separator`, each with its own run of slots. */
function joined(pieces: readonly Piece[], slot: Slot, separator: string): SQL {
  let offset = 0;
  const parts = pieces.map((piece) => {
    const from = offset;
    offset += piece.values.length;
    return piece.sql((i) => slot(from + i));
  });
  return sql.join(parts, sql.raw(separator));
}

/**
 * One `FilterCondition` as one piece. `top`: a clause of the whole query, where a path needs no
 * guard for `not` (it stands in none); inside a group every leaf is two-valued.
 *
 * @example
 * declare const s: Scope, articles: TableResource;
 * conditionPiece(s, articles, { op: 'not', conditions: [{ field: 'status', op: 'eq', value: 'draft' }] }, true).shape;
 * // 'not(c articles.status eq)'
 */
export function conditionPiece(s: Scope, resource: TableResource, condition: FilterCondition, top: boolean): Piece {
  if (condition.op === 'and' || condition.op === 'or' || condition.op === 'not') {
    const op = condition.op;
    const parts = condition.conditions.map((c) => conditionPiece(s, resource, c, false));
    const shapes = parts.map((p) => p.shape);
    return {
      shape: shapes.includes(undefined) ? undefined : `${op}(${shapes.join(', ')})`,
      values: parts.flatMap((p) => p.values),
      sql: (slot) => {
        if (parts.length === 0) return op === 'or' ? sql`1 = 0` : op === 'and' ? sql`1 = 1` : sql`1 = 0`;
        const all = joined(parts, slot, op === 'or' ? ') or (' : ') and (');
        return op === 'not' ? sql`not coalesce(((${all})), false)` : sql`((${all}))`;
      },
    };
  }
  if (condition.op === 'custom') {
    const filter = resource.mapping.filters?.[condition.field];
    if (!filter) throw new TypeError(`defineStore: ${resource.type} has no custom filter "${condition.field}"`);
    const value = condition.value as FilterValue;
    return { shape: undefined, values: [], sql: () => filter(value, s.context) };
  }
  const leaf = condition as Condition;
  if (leaf.count) {
    const count = countSql(s, resource, leaf.count);
    const op = SQL_COMPARISON[leaf.op as keyof typeof SQL_COMPARISON];
    if (!op) throw new TypeError(`defineStore: a count does not take the operator ${leaf.op}`);
    return {
      shape: count.shape === undefined ? undefined : `${count.shape} ${leaf.op}`,
      values: [leaf.value],
      sql: (slot) => sql`${count.sql} ${sql.raw(op)} ${slot(0)}`,
    };
  }
  if (leaf.path) return pathPiece(s, resource, leaf, !top);
  const column = resource.filterColumn(leaf.field);
  return {
    shape: `c ${resource.tableName}.${column.name} ${conditionShape(leaf)}`,
    values: valuesFor(column, leaf, s),
    sql: (slot) => comparison(column, leaf, s.sqlite, slot, s.mysql),
  };
}
