import { type RawBuilder, sql } from 'kysely';

/** Where a `likePattern` term may sit in the text it matches. */
export type LikePosition = 'contains' | 'startsWith' | 'endsWith' | 'equals';

/**
 * The right-hand side of a `like` that matches `term` literally: `%`, `_` and `\` in it are
 * escaped, the pattern is a bound parameter, and `escape '\'` is part of the expression, so it
 * means the same on SQLite (which has no default escape character) and PostgreSQL.
 * `filter[search]=50%` then finds "50%", not every title holding "50".
 *
 * @example
 * const search = (query: SelectQuery, value: FilterValue) =>
 *   query.where((eb) => eb(eb.fn('lower', ['articles.title']), 'like', likePattern(String(value).toLowerCase(), 'contains')));
 */
export function likePattern(term: string, position: LikePosition): RawBuilder<string> {
  return sql<string>`${likeText(term, position)} escape '\\'`;
}

/**
 * The pattern text `likePattern` binds: `term` with `%`, `_` and `\` escaped, wildcards where
 * `position` says.
 *
 * @example
 * likeText('50%', 'contains'); // '%50\\%%'
 */
export function likeText(term: string, position: LikePosition): string {
  const escaped = term.replace(/[\\%_]/g, (c) => `\\${c}`);
  return position === 'contains'
    ? `%${escaped}%`
    : position === 'startsWith'
      ? `${escaped}%`
      : position === 'endsWith'
        ? `%${escaped}`
        : escaped;
}
