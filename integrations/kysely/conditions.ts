import type { Condition, ConditionValue } from 'jsonapi-gen';
import { SQL_COMPARISON as COMPARISON, boundValue as bound, globPattern, likeText } from 'jsonapi-gen/internal';
import { type Expression, type SqlBool, sql } from 'kysely';
import type { AnyExpressionBuilder } from './any-database.js';
import type { SqlDialect } from './dialect.js';
import { likePattern } from './like.js';
import type { SelectQuery } from './select-query.js';

export { conditionShape, conditionValues } from 'jsonapi-gen/internal';

/**
 * The SQL of `column op value`, values bound: `=`, `<>`, `<` ... for one value; `in` / `not in`
 * for a list (an empty `in` matches nothing, an empty `not in` everything); `is null` / `is not
 * null`; text operators literally (`%`, `_` escaped): case-insensitive as `lower(column) like`,
 * case-sensitive as `like` on PostgreSQL, `glob` on SQLite (whose `like` ignores ASCII case) and
 * `like ... collate utf8mb4_bin` on MySQL (whose default collations ignore case).
 * A row whose column is null matches no comparison but `null`, as SQL has it.
 *
 * @example
 * import { db } from './db.js';
 * const query = db.selectFrom('articles').selectAll()
 *   .where((eb) => conditionSql(eb, 'articles.created_at', { op: 'gte', value: '2024-01-01T00:00:00.000Z' }, 'postgres'));
 */
export function conditionSql(
  eb: AnyExpressionBuilder,
  column: string,
  condition: Pick<Condition, 'op' | 'value' | 'caseInsensitive'>,
  dialect: SqlDialect,
): Expression<SqlBool> {
  const { op, value } = condition;
  const sqlite = dialect === 'sqlite';
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
      if (sqlite) return sql<SqlBool>`${ref} glob ${globPattern(text, op)}`;
      // MySQL's default collations ignore case: the pattern's binary collation makes the match exact.
      if (dialect === 'mysql')
        return sql<SqlBool>`${ref} like ${likeText(text, op)} collate utf8mb4_bin escape ${sql.lit('\\')}`;
      return eb(ref, 'like', likePattern(text, op));
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
  dialect: SqlDialect,
): SelectQuery {
  return query.where((eb) => conditionSql(eb, column, condition, dialect));
}
