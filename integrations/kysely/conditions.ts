import type { Condition, ConditionValue } from 'jsonapi-gen';
import { type Expression, type SqlBool, sql } from 'kysely';
import type { AnyExpressionBuilder } from './any-database.js';
import { likePattern, likeText } from './like.js';
import type { SelectQuery } from './select-query.js';

/** A value as the driver binds it: SQLite has no booleans (1 and 0). */
function bound(value: ConditionValue, sqlite: boolean): ConditionValue {
  return sqlite && typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** The SQL comparison of each ordering and equality operator. */
const COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** A GLOB pattern (SQLite, case-sensitive) that matches `term` literally where `position` says. */
function globPattern(term: string, position: 'contains' | 'startsWith' | 'endsWith'): string {
  const escaped = term.replace(/[*?[]/g, (c) => `[${c}]`);
  return position === 'contains' ? `*${escaped}*` : position === 'startsWith' ? `${escaped}*` : `*${escaped}`;
}

/**
 * The SQL of `column op value`, values bound: `=`, `<>`, `<` ... for one value; `in` / `not in`
 * for a list (an empty `in` matches nothing, an empty `not in` everything); `is null` / `is not
 * null`; text operators literally (`%`, `_` escaped): case-insensitive as `lower(column) like`,
 * case-sensitive as `like` on PostgreSQL and `glob` on SQLite (whose `like` ignores ASCII case).
 * A row whose column is null matches no comparison but `null`, as SQL has it.
 *
 * @example
 * import { db } from './db.js';
 * const query = db.selectFrom('articles').selectAll()
 *   .where((eb) => conditionSql(eb, 'articles.created_at', { op: 'gte', value: '2024-01-01T00:00:00.000Z' }, false));
 */
export function conditionSql(
  eb: AnyExpressionBuilder,
  column: string,
  condition: Pick<Condition, 'op' | 'value' | 'caseInsensitive'>,
  sqlite: boolean,
): Expression<SqlBool> {
  const { op, value } = condition;
  const ref = eb.ref(column);
  switch (op) {
    case 'null':
      return value === true ? eb(ref, 'is', null) : eb(ref, 'is not', null);
    case 'in':
    case 'nin': {
      const list = value as readonly ConditionValue[];
      if (list.length === 0) return op === 'in' ? sql<SqlBool>`1 = 0` : sql<SqlBool>`1 = 1`;
      return eb(
        ref,
        op === 'in' ? 'in' : 'not in',
        list.map((v) => bound(v, sqlite)),
      );
    }
    case 'contains':
    case 'startsWith':
    case 'endsWith': {
      const text = String(value);
      if (condition.caseInsensitive) return eb(eb.fn('lower', [ref]), 'like', likePattern(text.toLowerCase(), op));
      return sqlite ? sql<SqlBool>`${ref} glob ${globPattern(text, op)}` : eb(ref, 'like', likePattern(text, op));
    }
    default:
      return eb(ref, COMPARISON[op], bound(value as ConditionValue, sqlite));
  }
}

/** `query` narrowed by `column op value` (see `conditionSql`). */
export function whereCondition(
  query: SelectQuery,
  column: string,
  condition: Pick<Condition, 'op' | 'value' | 'caseInsensitive'>,
  sqlite: boolean,
): SelectQuery {
  return query.where((eb) => conditionSql(eb, column, condition, sqlite));
}

/** What a condition's SQL text depends on (not its values): the operator, a list's length, the case rule. */
export function conditionShape(condition: Pick<Condition, 'op' | 'value' | 'caseInsensitive'>): string {
  const { op, value } = condition;
  if (op === 'in' || op === 'nin') return `${op}${(value as readonly unknown[]).length}`;
  if (op === 'null') return `null${String(value)}`;
  return condition.caseInsensitive ? `${op}/i` : op;
}

/** The values a condition binds, in order (none for `null` and empty lists; the pattern for text operators). */
export function conditionValues(
  condition: Pick<Condition, 'op' | 'value' | 'caseInsensitive'>,
  sqlite: boolean,
): unknown[] {
  const { op, value } = condition;
  if (op === 'null') return [];
  if (op === 'in' || op === 'nin') return (value as readonly ConditionValue[]).map((v) => bound(v, sqlite));
  if (op === 'contains' || op === 'startsWith' || op === 'endsWith') {
    const text = String(value);
    if (condition.caseInsensitive) return [likeText(text.toLowerCase(), op)];
    return [sqlite ? globPattern(text, op) : likeText(text, op)];
  }
  return [bound(value as ConditionValue, sqlite)];
}
