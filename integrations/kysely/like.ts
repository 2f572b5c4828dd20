import { type LikePosition, likeText } from 'jsonapi-gen/internal';
import { type RawBuilder, sql } from 'kysely';

export { likeText, type LikePosition } from 'jsonapi-gen/internal';

/**
 * The right-hand side of a `like` that matches `term` literally: `%`, `_` and `\` in it are
 * escaped, the pattern is a bound parameter, and `escape '\'` is part of the expression, so it
 * means the same on SQLite (which has no default escape character), PostgreSQL and MySQL.
 * `filter[search]=50%` then finds "50%", not every title holding "50".
 *
 * @example
 * const search = (query: SelectQuery, value: FilterValue) =>
 *   query.where((eb) => eb(eb.fn('lower', ['articles.title']), 'like', likePattern(String(value).toLowerCase(), 'contains')));
 */
export function likePattern(term: string, position: LikePosition): RawBuilder<string> {
  // A literal, not text: each dialect writes the backslash as its string literals need (MySQL doubles it).
  return sql<string>`${likeText(term, position)} escape ${sql.lit('\\')}`;
}
